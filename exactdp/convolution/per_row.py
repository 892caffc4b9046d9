"""A noise parameter given per kept row: one value for every kept row, a sequence with one
value per kept row (in row order), or a mapping ``{row: value}`` naming exactly the kept
rows.  The clamped geometric's ratios and the discrete Gaussian's variances are given this
way."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from exactdp.params import ParameterError

__all__ = ["per_kept_row"]


def per_kept_row(spec: object, rows: Sequence[int], name: str,
                 check: Callable[[object, str], Fraction], required: str
                 ) -> tuple[Fraction, ...]:
    """One checked value per kept row (``check(value, label)`` validates one value and names
    it ``name[j]``); ``required`` is the message when ``spec`` is None.

    >>> per_kept_row({3: 2, 5: 4}, [3, 5], "ratios", lambda v, _: Fraction(v), "")
    (Fraction(2, 1), Fraction(4, 1))
    """
    if spec is None:
        raise ParameterError(required)
    if isinstance(spec, Mapping):
        missing = [j for j in rows if j not in spec]
        if missing:
            raise ParameterError(f"{name} has no entry for the kept rows {missing[:5]}")
        extra = sorted(set(spec) - set(rows), key=repr)
        if extra:
            raise ParameterError(f"{name} names rows {extra[:5]} that are not kept (kept rows: "
                                 f"those with a non-zero column of G)")
        return tuple(check(spec[j], f"{name}[{j}]") for j in rows)
    if isinstance(spec, Sequence) and not isinstance(spec, (str, bytes)):
        if len(spec) != len(rows):
            raise ParameterError(f"{name} has {len(spec)} entries; it needs one per kept row "
                                 f"({len(rows)})")
        checked: dict[int, Fraction] = {}   # a calibration repeats one object per class
        out = []
        for i, v in enumerate(spec):
            c = checked.get(id(v))
            if c is None:
                c = checked[id(v)] = check(v, f"{name}[{i}]")
            out.append(c)
        return tuple(out)
    one = check(spec, name)
    return tuple(one for _ in rows)
