"""The product of privacy-loss distributions: the arithmetic behind
:func:`exactdp.accounting.compose.compose` (see its module doc for what is computed).

The functions here read a loss's fields and build the result with the loss's own class
(``type(x)``), so that :class:`exactdp.accounting.loss.PrivacyLoss` can call them for its
``compose``/``power`` methods without an import cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import gmpy2

from exactdp.accounting.lattice import relate_bases
from exactdp.histograms.polymul import truncated_product, truncated_square
from exactdp.params import ParameterError, ResourceLimitError

if TYPE_CHECKING:
    from exactdp.accounting.loss import PrivacyLoss

__all__ = ["MAX_ATOMS", "compose_all", "power_of"]

#: Most distinct ratios an atom-by-atom composition may produce.
MAX_ATOMS = 1 << 20


def compose_all(losses: Sequence[PrivacyLoss], limit: int = MAX_ATOMS) -> PrivacyLoss:
    """The product of checked losses (at least one); the same object ``m`` times by
    :func:`power_of`, the rest by a balanced product tree.  More than ``limit`` distinct
    ratios in an atom-by-atom product, or in the result, raise
    :class:`~exactdp.params.ResourceLimitError`."""
    if not losses:
        raise ParameterError("compose needs at least one PrivacyLoss")
    counts: dict[int, tuple[PrivacyLoss, int]] = {}
    for loss in losses:
        counts[id(loss)] = (loss, counts[id(loss)][1] + 1 if id(loss) in counts else 1)
    parts = [power_of(loss, m, limit) for loss, m in counts.values()]
    while len(parts) > 1:  # a balanced product tree: operands of similar size
        parts = [_pair(parts[i], parts[i + 1], limit) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    return _within(parts[0], limit)


def _within(loss: PrivacyLoss, limit: int) -> PrivacyLoss:
    if limit < MAX_ATOMS and len(loss) > limit:
        raise ResourceLimitError(
            f"the composed privacy loss has more than {limit} distinct ratios; compose "
            f"fewer releases")
    return loss


def power_of(loss: PrivacyLoss, k: int, limit: int = MAX_ATOMS) -> PrivacyLoss:
    """``k >= 1`` independent runs of one release (repeated squaring: ``O(log k)``
    products; two ratios: the binomial closed form)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ParameterError(f"k = {k!r} must be an int >= 1 (the number of releases)")
    if k > 1 and loss._offset is not None and len(loss._pn) >= 2 \
            and not any(loss._pn[1:-1]) and not any(loss._qn[1:-1]):
        return _binomial(loss, k)
    result: PrivacyLoss | None = None
    base = loss
    while True:
        if k & 1:
            result = base if result is None else _pair(result, base, limit)
        k >>= 1
        if not k:
            break
        base = _pair(base, base, limit)
    assert result is not None
    return result


def _binomial(loss: PrivacyLoss, k: int) -> PrivacyLoss:
    """``k`` runs of a loss with two ratios (lattice slots ``0`` and ``s``): slot ``i s`` of
    the result has P-numerator ``C(k, i) a0**(k-i) a1**i`` (likewise Q), each term from the
    previous one by one exact multiplication and division."""
    s = len(loss._pn) - 1
    cls = type(loss)

    def terms(x0: int, x1: int) -> list[int]:
        m0, m1 = gmpy2.mpz(x0), gmpy2.mpz(x1)
        out, term = [], m0**k
        for i in range(k + 1):
            out.append(int(term))
            if i < k:
                term = term * (k - i) * m1 // ((i + 1) * m0)  # exact: the next binomial term
        return out

    pn, qn = terms(loss._pn[0], loss._pn[-1]), terms(loss._qn[0], loss._qn[-1])
    pden, qden = loss._pden**k, loss._qden**k
    inf = pden - (loss._pden - loss._inf) ** k
    zero = qden - (loss._qden - loss._zero) ** k
    assert loss._offset is not None
    return cls(pden=pden, qden=qden, pn=_spread(pn, s), qn=_spread(qn, s), inf=inf,
                       zero=zero, offset=loss._offset**k, base=loss._base)


def _spread(values: list[int], step: int) -> list[int]:
    if step == 1 or len(values) <= 1:
        return values
    dense = [0] * ((len(values) - 1) * step + 1)
    dense[::step] = values
    return dense


def _pair(x: PrivacyLoss, y: PrivacyLoss, limit: int = MAX_ATOMS) -> PrivacyLoss:
    cls = type(x)
    pden, qden = x._pden * y._pden, x._qden * y._qden
    inf = pden - (x._pden - x._inf) * (y._pden - y._inf)
    zero = qden - (x._qden - x._zero) * (y._qden - y._zero)
    if x._offset is not None and y._offset is not None:
        if not x._pn or not y._pn:
            return cls(pden=pden, qden=qden, pn=[], qn=[], inf=inf, zero=zero,
                               offset=Fraction(1))
        bx, by = x._base, y._base
        if bx is None or by is None:
            rel: tuple[Fraction | None, int, int] | None = (by if bx is None else bx, 1, 1)
        else:
            rel = relate_bases(bx, by)
        if rel is not None:
            base, sx, sy = rel
            px, qx = _spread(x._pn, sx), _spread(x._qn, sx)
            py, qy = _spread(y._pn, sy), _spread(y._qn, sy)
            size = len(px) + len(py) - 1
            if x is y:
                pn, qn = truncated_square(px, size), truncated_square(qx, size)
            else:
                pn, qn = truncated_product(px, py, size), truncated_product(qx, qy, size)
            return cls(pden=pden, qden=qden, pn=pn, qn=qn, inf=inf, zero=zero,
                               offset=x._offset * y._offset, base=base)
    atoms: dict[Fraction, list[int]] = {}
    xs = [(x._value(i), a, b) for i, (a, b) in enumerate(zip(x._pn, x._qn)) if a or b]
    ys = [(y._value(i), a, b) for i, (a, b) in enumerate(zip(y._pn, y._qn)) if a or b]
    for vx, ax, bx_ in xs:
        for vy, ay, by_ in ys:
            slot = atoms.get(vx * vy)
            if slot is None:
                atoms[vx * vy] = [ax * ay, bx_ * by_]
            else:
                slot[0] += ax * ay
                slot[1] += bx_ * by_
        if len(atoms) > limit:
            raise ResourceLimitError(
                f"the composed privacy loss has more than {limit} distinct ratios (the "
                f"ratios are on no common lattice); compose fewer releases")
    vals = sorted(atoms)
    if not vals:
        return cls(pden=pden, qden=qden, pn=[], qn=[], inf=inf, zero=zero,
                           offset=Fraction(1))
    return cls(pden=pden, qden=qden, pn=[atoms[v][0] for v in vals],
                       qn=[atoms[v][1] for v in vals], inf=inf, zero=zero, values=tuple(vals))
