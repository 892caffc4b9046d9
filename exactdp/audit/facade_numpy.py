"""The facades of numpy's ``Generator`` and legacy ``RandomState`` (whose methods are also
numpy's module functions ``np.random.laplace``...): objects that behave like them and turn
each call into draws of the audit's exploring source (:mod:`exactdp.audit.facade_engine`),
their doubles computed from 53-bit draws as numpy does (:mod:`exactdp.audit.facade_floats`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from exactdp.audit import facade_floats as ff
from exactdp.audit.draw_native import C as _C
from exactdp.audit.facade_engine import FacadeRefusal, _Engine, _lazy_uniform
from exactdp.audit.facade_floats import FLOAT_BITS, as_unit_float

__all__ = ["UNMODELLED_FUNCTIONS", "LegacyNumpyFacade", "NumpyFacade"]


def _continuous(name: str, **options: Any) -> None:
    """Continuous draws are modelled one scalar at a time; array parameters are not."""
    for k, v in options.items():
        if isinstance(v, (list, tuple)) or getattr(v, "ndim", 0) != 0:
            raise FacadeRefusal(f"the numpy facade models {name} with scalar parameters only "
                                f"({k} = {v!r:.40}); audit this code black-box")


#: numpy's module-level draws that no facade models (``np.random.binomial``...): patched
#: with the facade's refusal when ``numpy.random`` is patched, so that the code is refused
#: (audit black-box) rather than reported as escaping to the global generator.
UNMODELLED_FUNCTIONS = (
    "beta", "binomial", "bytes", "chisquare", "dirichlet", "f", "gamma", "gumbel",
    "hypergeometric", "logistic", "lognormal", "logseries", "multinomial",
    "multivariate_normal", "negative_binomial", "noncentral_chisquare", "noncentral_f",
    "pareto", "permutation", "poisson", "power", "random_integers", "ranf", "rayleigh",
    "shuffle", "standard_cauchy", "standard_gamma", "standard_t", "triangular",
    "vonmises", "wald", "weibull", "zipf")


#: The public draws of numpy's ``Generator`` and ``RandomState`` the facades do not define
#: (:meth:`NumpyFacade.__getattr__` refuses them).
_GENERATOR_DRAWS = frozenset(UNMODELLED_FUNCTIONS) - {"random_integers", "ranf"} | {
    "multivariate_hypergeometric", "permuted"}
_LEGACY_DRAWS = frozenset(UNMODELLED_FUNCTIONS) | {"tomaxint"}


class NumpyFacade:
    """Behaves like ``numpy.random.Generator``: ``integers(low, high=None, endpoint=False)``,
    ``random()``, ``choice(a)`` (uniform, with replacement), and the continuous draws whose
    algorithm is a function of 53-bit doubles (:mod:`exactdp.audit.facade_floats`):
    ``laplace``, ``uniform``, ``geometric`` (``p >= 1/3``), each also with ``size``.
    numpy's ziggurat draws (``Generator.normal``, ``exponential``, ``standard_normal``,
    ``geometric`` with ``p < 1/3``) work on 64-bit integers through tables and are refused
    (:class:`FacadeRefusal`), as are integer/choice draws with ``size``/``p``."""

    legacy = False

    def __init__(self, engine: _Engine) -> None:
        self._engine = engine

    def _reset(self) -> None:
        """A fresh generator's state for each run."""

    def __getattr__(self, name: str) -> Any:
        """A public method of numpy's generator that the facade does not model: a callable
        that refuses (:class:`FacadeRefusal`, audit black-box) when the code calls it."""
        if name not in (_LEGACY_DRAWS if self.legacy else _GENERATOR_DRAWS):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        real = "RandomState" if self.legacy else "Generator"

        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise FacadeRefusal(f"the numpy facade does not model {real}.{name} (np.random."
                                f"{name}); audit this code black-box")
        return refuse

    @staticmethod
    def _refuse(call: str, **options: Any) -> None:
        used = {k: v for k, v in options.items() if v is not None}
        if used:
            raise FacadeRefusal(f"the numpy facade does not model {call} with {used} (only "
                                f"scalar uniform draws); audit this code black-box")

    def _double(self) -> Any:
        return as_unit_float(self._engine.draw(1 << FLOAT_BITS))

    def _positive_double(self) -> Any:
        """A double drawn until it is not 0 (numpy's laplace rejects 0), as one draw of
        ``j`` uniform on ``[1, 2**53)``: the same law of the value, exactly, without the
        path of probability 0 that redraws forever."""
        return as_unit_float(self._engine.draw((1 << FLOAT_BITS) - 1) + 1)

    def _unit(self) -> Any:
        """A scalar ``random()``: lazy, branched on each comparison, like ``random.random()``
        (:meth:`_Engine.unit`)."""
        return self._engine.unit()

    def _sized(self, draw: Callable[[], Any], size: Any) -> Any:
        return draw() if size is None else ff.filled(draw, size)

    def integers(self, low: int, high: int | None = None, size: Any = None, dtype: Any = None,
                 endpoint: bool = False) -> int:
        if type(low) is int and high is None and size is None and not endpoint:
            if low <= 0:  # the common ``integers(n)``: the checks below, for a plain int
                raise ValueError("low >= high")
            return self._engine.draw(low)
        self._refuse("integers", size=size)
        lo, hi = (0, int(low)) if high is None else (int(low), int(high))
        hi += 1 if endpoint else 0
        if hi <= lo:
            raise ValueError("low >= high")
        return lo + self._engine.draw(hi - lo)

    def random(self, size: Any = None, dtype: Any = None, out: Any = None) -> Any:
        if out is not None:
            self._refuse("random", out=out)
        scalar = dtype is None or str(dtype) in ("float64", "d")  # the default double
        return self._sized(self._unit if scalar and size is None else self._double, size)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None,
               axis: int = 0, shuffle: bool = True) -> Any:
        if size is not None or p is not None:
            self._refuse("choice", size=size, p=p)
        if isinstance(a, int):
            return self.integers(a)
        if not len(a):
            raise ValueError("a cannot be empty unless no samples are taken")
        return a[self._engine.draw(len(a))]

    def laplace(self, loc: Any = 0, scale: Any = 1, size: Any = None) -> Any:
        _continuous("laplace", loc=loc, scale=scale)
        return self._sized(lambda: ff.laplace(self._positive_double, loc, scale), size)

    def uniform(self, low: Any = 0, high: Any = 1, size: Any = None) -> Any:
        _continuous("uniform", low=low, high=high)
        if size is None and type(self) is NumpyFacade:  # Generator: random() is lazy too
            value = _lazy_uniform(self._engine, low, high)
            if value is not None:
                return value
        return self._sized(lambda: ff.uniform_range(self._double, low, high), size)

    def geometric(self, p: Any, size: Any = None) -> Any:
        _continuous("geometric", p=p)
        if not ff.geometric_search_applies(p):
            raise FacadeRefusal(f"geometric(p = {p!r:.20}) with p < 1/3 is drawn by numpy "
                                f"through its ziggurat exponential, which the facade does not "
                                f"model; audit this code black-box")
        return self._sized(lambda: ff.geometric_search(self._double, p), size)

    def _ziggurat(self, name: str) -> Any:
        raise FacadeRefusal(f"numpy's Generator.{name} uses the ziggurat algorithm on 64-bit "
                            f"draws, which the facade does not model exactly; audit this code "
                            f"black-box (np.random.{name} and RandomState.{name}, the legacy "
                            f"algorithms, are modelled: --rng numpy-legacy)")

    def normal(self, *args: Any, **kwargs: Any) -> Any:
        return self._ziggurat("normal")

    def standard_normal(self, *args: Any, **kwargs: Any) -> Any:
        return self._ziggurat("standard_normal")

    def exponential(self, *args: Any, **kwargs: Any) -> Any:
        return self._ziggurat("exponential")

    def standard_exponential(self, *args: Any, **kwargs: Any) -> Any:
        return self._ziggurat("standard_exponential")


#: The Python methods ``integers`` and ``choice`` (the reference of the C ones, which call
#: them for every case they do not handle themselves).
PY_INTEGERS, PY_CHOICE = NumpyFacade.integers, NumpyFacade.choice

if _C is not None:  # integers(n) and choice(list or tuple) in C: engine.draw's common case
    # there, every other call the methods above (exactdp.audit.draw_native)
    _C.setup_numpy(PY_INTEGERS, PY_CHOICE)
    NumpyFacade.integers = _C.as_method(_C.integers)  # type: ignore[method-assign]
    NumpyFacade.choice = _C.as_method(_C.choice)  # type: ignore[method-assign]


class LegacyNumpyFacade(NumpyFacade):
    """Behaves like ``numpy.random.RandomState`` (and so like the module functions
    ``np.random.laplace``, ``np.random.normal``...): its ``exponential`` is ``-log(1 - U)``
    and its ``normal`` the polar method, keeping the second value of each pair for the next
    call (:mod:`exactdp.audit.facade_floats`); ``randint``/``random_sample`` are uniform."""

    legacy = True

    def __init__(self, engine: _Engine) -> None:
        super().__init__(engine)
        self._gauss: Any = None

    def _reset(self) -> None:
        self._gauss = None

    def random_sample(self, size: Any = None) -> Any:
        return self._unit() if size is None else self._sized(self._double, size)

    def random(self, size: Any = None) -> Any:  # type: ignore[override]
        return self.random_sample(size)

    sample = random_sample

    def rand(self, *shape: int) -> Any:
        return self.random_sample(shape or None)

    def randint(self, low: int, high: int | None = None, size: Any = None,
                dtype: Any = None) -> int:
        return self.integers(low, high, size=size)

    def _gauss_draw(self) -> Any:
        if self._gauss is not None:
            value, self._gauss = self._gauss, None
            return value
        value, self._gauss = ff.legacy_gauss_pair(self._double)
        return value

    def standard_normal(self, size: Any = None) -> Any:
        return self._sized(self._gauss_draw, size)

    def randn(self, *shape: int) -> Any:
        return self.standard_normal(shape or None)

    def normal(self, loc: Any = 0, scale: Any = 1, size: Any = None) -> Any:
        _continuous("normal", loc=loc, scale=scale)
        ff.legacy_normal(0, loc, scale)  # parameters checked before any draw, as numpy does
        return self._sized(lambda: ff.legacy_normal(self._gauss_draw(), loc, scale), size)

    def exponential(self, scale: Any = 1, size: Any = None) -> Any:
        _continuous("exponential", scale=scale)
        ff.legacy_exponential(lambda: 0, scale)  # parameters checked before any draw
        return self._sized(lambda: ff.legacy_exponential(self._double, scale), size)

    def standard_exponential(self, size: Any = None) -> Any:
        return self._sized(lambda: ff.legacy_exponential(self._double, 1), size)
