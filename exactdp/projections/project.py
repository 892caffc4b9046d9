"""Exact integer projections and signs (Li & Li, paper 001, §1.1 and Algorithm 4).

``x = W^T u`` and OPORP's ``x_j = w^(j)T u_Pi^(j)`` are computed in Python ints: no
``1/sqrt(k)`` (a public constant), so every ``x_j`` is an exact integer and its sign is exact.
A zero projection has no sign: :func:`sign_with_tie` reports it as 0 for analysis, but no
mechanism releases a 0 (a third symbol would reveal ``x_j = 0``); they
release a fair coin instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from exactdp.params import ParameterError, ParameterTypeError
from exactdp.projections.matrices import IntMatrix, OPORPPlan

__all__ = ["int_vector", "oporp", "project", "sign_with_tie"]


def int_vector(u: Sequence[int], p: int, name: str = "u") -> tuple[int, ...]:
    """``u`` as a tuple of ``p`` ints (bools and floats refused)."""
    if type(u) is tuple and len(u) == p:  # the common case, without the ABC check
        for v in u:
            if type(v) is not int:
                break
        else:
            return u
    if isinstance(u, (str, bytes)) or not isinstance(u, Sequence):
        raise ParameterTypeError(f"{name} must be a sequence of {p} ints")
    if len(u) != p:
        raise ParameterError(f"{name} has {len(u)} coordinates; the projection needs p = {p}")
    for i, v in enumerate(u):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ParameterTypeError(f"{name}[{i}] = {v!r:.60} must be an int (data on an "
                                     f"integer grid; scale real data by a public C)")
    return tuple(u)


def project(u: Sequence[int], W: IntMatrix) -> tuple[int, ...]:
    """``x_j = sum_i W[i][j] * u[i]`` for ``j = 0..k-1`` (``W^T u``, unscaled)."""
    vec = int_vector(u, len(W))
    k = len(W[0])
    x = [0] * k
    for ui, row in zip(vec, W):
        if ui:
            for j in range(k):
                x[j] += row[j] * ui
    return tuple(x)


def oporp(u: Sequence[int], plan: OPORPPlan) -> tuple[int, ...]:
    """OPORP (Algorithm 4): ``x_j = sum_{t in bin j} w[t] * u[perm[t]]``, bins of
    ``p/k`` consecutive positions of the permuted vector; no ``1/sqrt(k)``."""
    vec = int_vector(u, plan.p)
    size = plan.bin_size
    x = [0] * plan.k
    for t, (i, wt) in enumerate(zip(plan.perm, plan.w)):
        x[t // size] += wt * vec[i]
    return tuple(x)


def sign_with_tie(x: int) -> int:
    """``sign(x)`` in ``{-1, 0, 1}`` (0 exactly when ``x == 0``)."""
    return (x > 0) - (x < 0)
