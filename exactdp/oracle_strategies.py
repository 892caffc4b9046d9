"""Hypothesis strategies for tests of the paper's mechanisms (re-exported by
:mod:`exactdp.testing`): valid parameters for each mechanism, counts and neighbouring counts,
small universes, datasets over them and neighbouring dataset pairs."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Literal

try:
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - exercised only without the test extra
    raise ImportError("exactdp.testing needs hypothesis: pip install 'exactdp[test]'") from exc

from exactdp.params import ParameterError, positive_int

__all__ = ["betas", "counts", "datasets", "epsilons", "fastsample_params", "gammas",
           "geometric_params", "geosample_params", "neighbouring_counts",
           "neighbouring_datasets", "universes"]

def epsilons(max_denominator: int = 64) -> st.SearchStrategy[Fraction]:
    """Privacy parameters in ``N^{-1}``: ``1/m`` for ``1 <= m <= max_denominator``."""
    return st.integers(1, positive_int(max_denominator, "max_denominator")).map(
        lambda m: Fraction(1, m))


def gammas(max_denominator: int = 64) -> st.SearchStrategy[Fraction]:
    """FastSample's ``gamma = 1/m`` with ``m >= 2`` (``gamma = 1`` is refused)."""
    return st.integers(2, max(2, positive_int(max_denominator, "max_denominator"))).map(
        lambda m: Fraction(1, m))


def betas(max_denominator: int = 64) -> st.SearchStrategy[Fraction]:
    """Accuracy failure probabilities ``beta = 1/m`` in ``(0, 1]``."""
    return epsilons(max_denominator)


def counts(n: int) -> st.SearchStrategy[int]:
    """A count ``c`` in ``[n] = {0, ..., n}``."""
    return st.integers(0, positive_int(n, "n"))


def neighbouring_counts(n: int) -> st.SearchStrategy[tuple[int, int]]:
    """Neighbouring counts ``(c, c + 1)`` with both in ``[n]`` (Definition 4.1)."""
    return st.integers(0, positive_int(n, "n") - 1).map(lambda c: (c, c + 1))


def geosample_params(max_n: int = 16, max_denominator: int = 16) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for :class:`~exactdp.counting.GeoSample` (Algorithm 4.8)."""
    return st.fixed_dictionaries({"n": st.integers(1, max_n),
                                  "epsilon": epsilons(max_denominator)})


def fastsample_params(max_n: int = 8, max_denominator: int = 4,
                      max_gamma_denominator: int = 8) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for :class:`~exactdp.counting.FastSample` (Algorithm 4.11).

    The defaults keep ``d`` small enough for exact checks in a unit test.
    """
    return st.fixed_dictionaries({"n": st.integers(1, max_n),
                                  "epsilon": epsilons(max_denominator),
                                  "gamma": gammas(max_gamma_denominator)})


def geometric_params(max_n: int = 16, max_denominator: int = 16) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for :class:`~exactdp.counting.GeometricMechanism`: ``n`` and a
    rational ``alpha`` in ``(0, 1)``."""
    alpha = st.integers(2, max_denominator).flatmap(
        lambda q: st.integers(1, q - 1).map(lambda p: Fraction(p, q)))
    return st.fixed_dictionaries({"n": st.integers(1, max_n), "alpha": alpha})


def universes(max_size: int = 4) -> st.SearchStrategy[tuple[int, ...]]:
    """A small universe ``(0, 1, ..., k-1)`` with ``1 <= k <= max_size``."""
    return st.integers(1, positive_int(max_size, "max_size")).map(lambda k: tuple(range(k)))


def datasets(universe: Sequence[Any] | None = None,
             max_size: int = 6) -> st.SearchStrategy[tuple[Any, ...]]:
    """A dataset: a tuple of elements of ``universe`` (drawn from :func:`universes` when
    omitted), of length at most ``max_size``; order is kept, repeats allowed."""
    if universe is None:
        return universes().flatmap(lambda u: datasets(u, max_size))
    if not universe:
        raise ParameterError("universe must not be empty")
    return st.lists(st.sampled_from(list(universe)), max_size=max_size).map(tuple)


def neighbouring_datasets(universe: Sequence[Any] | None = None, max_size: int = 6,
                          relation: Literal["add_remove", "substitute"] = "add_remove"
                          ) -> st.SearchStrategy[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """Neighbouring datasets ``(D, D')``.

    ``"add_remove"``: ``D'`` is ``D`` with one element inserted (at any position), so the
    pair covers both directions when used with the symmetric assertions above.
    ``"substitute"``: same size, one element replaced by a different one.
    """
    if universe is None:
        return universes().flatmap(lambda u: neighbouring_datasets(u, max_size, relation))
    items = list(universe)
    if not items:
        raise ParameterError("universe must not be empty")
    if relation == "add_remove":
        return datasets(items, max(max_size - 1, 0)).flatmap(
            lambda d: st.tuples(st.integers(0, len(d)), st.sampled_from(items)).map(
                lambda t: (d, d[:t[0]] + (t[1],) + d[t[0]:])))
    if relation == "substitute":
        if len(items) < 2:
            raise ParameterError("substitution needs a universe of at least two elements")
        return datasets(items, max_size).filter(bool).flatmap(
            lambda d: st.tuples(st.integers(0, len(d) - 1), st.sampled_from(items)).filter(
                lambda t: t[1] != d[t[0]]).map(
                lambda t: (d, d[:t[0]] + (t[1],) + d[t[0] + 1:])))
    raise ParameterError(f"relation = {relation!r} must be 'add_remove' or 'substitute'")
