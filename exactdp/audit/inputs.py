"""The audit's inputs and neighbour relation: the ``--inputs`` grammar
and the API helper, over the shared relations of :mod:`exactdp.neighbours` (written once
there; nothing here enumerates a domain or decides adjacency).

Grammar of ``--inputs`` (ints in ASCII digits; spaces allowed after commas):

* ``LO..HI`` -- counts ``LO..HI`` with ``c ~ c+1`` (paper 004, Definition 4.1; as before);
* ``datasets(LO..HI, N, add-remove)`` / ``datasets(LO..HI, N, replace-one)`` -- multisets
  (sorted tuples) of at most ``N`` elements of the universe ``LO..HI``;
* ``vectors(P, LO..HI, BETA, one-coordinate|l1|linf)`` -- the integer box ``{LO..HI}^P``
  with sensitivity ``BETA``: one coordinate moves, the coordinates move by ``BETA`` in
  total (l1), or every coordinate may move by up to ``BETA`` (linf: query vectors of noisy
  max and sparse vector);
* ``booleans(P)`` -- ``{0,1}^P``, one bit flipped.

A relation's inputs are its points; the audit checks both orders of each edge.

>>> spec = parse_inputs("booleans(2)")
>>> spec.inputs, spec.neighbours[:2], len(spec.neighbours)
(((0, 0), (0, 1), (1, 0), (1, 1)), [((0, 0), (0, 1)), ((0, 0), (1, 0))], 4)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from exactdp.audit.targets import parse_range
from exactdp.neighbours import Relation, booleans, datasets, vectors
from exactdp.params import ParameterError

__all__ = ["AuditInputs", "audit_relation", "from_relation", "parse_inputs"]

R = TypeVar("R")

_CALL_RE = re.compile(r"^\s*(datasets|vectors|booleans)\s*\((.*)\)\s*$")
_INT_RE = re.compile(r"^-?[0-9]{1,6}$")


@dataclass(frozen=True)
class AuditInputs:
    """The inputs of an audit and its neighbouring pairs (None: consecutive ``c, c+1``)."""

    inputs: range | tuple[Any, ...]
    neighbours: list[tuple[Any, Any]] | None
    relation: str

    def kwargs(self) -> dict[str, Any]:
        """``inputs=`` and ``neighbours=`` for :func:`~exactdp.audit.whitebox_audit` or
        :func:`~exactdp.audit.blackbox_audit`."""
        return {"inputs": self.inputs, "neighbours": self.neighbours}


def from_relation(relation: Relation[Any]) -> AuditInputs:
    """A relation's points, and each edge once (the audit checks both orders)."""
    index = {x: i for i, x in enumerate(relation.points)}
    edges = [(x, y) for x, y in relation.ordered_pairs() if index[x] < index[y]]
    if not edges:
        raise ParameterError(f"{relation.name}: no neighbouring pair to audit")
    return AuditInputs(relation.points, edges, relation.name)


def _int(text: str, what: str, flag: str) -> int:
    if not _INT_RE.match(text.strip()):
        raise ParameterError(f"{flag}: {what} = {text.strip()!r} must be an integer (ASCII "
                             f"digits, at most 6)")
    return int(text.strip())


def _args(body: str, names: tuple[str, ...], flag: str, usage: str) -> list[str]:
    parts = [p.strip() for p in body.split(",")] if body.strip() else []
    if len(parts) != len(names):
        raise ParameterError(f"{flag}: expected {usage} ({len(names)} arguments: "
                             f"{', '.join(names)}), got {len(parts)}")
    return parts


def parse_inputs(text: str, flag: str = "--inputs") -> AuditInputs:
    """Parse the ``--inputs`` grammar (module docstring) into inputs and neighbours."""
    m = _CALL_RE.match(text) if isinstance(text, str) and len(text) <= 200 else None
    if m is None:  # a range (parse_range checks its type, length and digits)
        rng = parse_range(text, flag)
        return AuditInputs(rng, None, f"counts {rng.start}..{rng.stop - 1}, c ~ c+1 (a "
                                      f"count changes by one)")
    kind, body = m.group(1), m.group(2)
    if kind == "booleans":
        (p,) = _args(body, ("P",), flag, "booleans(P)")
        return from_relation(booleans(_int(p, "P", flag)))
    if kind == "datasets":
        usage = "datasets(LO..HI, N, add-remove|replace-one)"
        universe, n, how = _args(body, ("LO..HI", "N", "kind"), flag, usage)
        items = tuple(parse_range(universe, f"{flag} universe"))
        if len(items) > 64:
            raise ParameterError(f"{flag}: a universe of {len(items)} elements is too large "
                                 f"(at most 64)")
        return from_relation(datasets(items, _int(n, "N", flag), how))
    usage = "vectors(P, LO..HI, BETA, one-coordinate|l1|linf)"
    p, box, beta, how = _args(body, ("P", "LO..HI", "BETA", "kind"), flag, usage)
    rng = parse_range(box, f"{flag} box")
    return from_relation(vectors(_int(p, "P", flag), rng.start, rng.stop - 1,
                                 _int(beta, "BETA", flag), how))


def audit_relation(audit: Callable[..., R], mechanism: Any, relation: Relation[Any],
                   **kwargs: Any) -> R:
    """Run ``audit`` (:func:`~exactdp.audit.whitebox_audit` or
    :func:`~exactdp.audit.blackbox_audit`) on ``relation``'s points and edges; the report
    names the relation.

    >>> from exactdp.audit import whitebox_audit
    >>> from exactdp.neighbours import booleans
    >>> def first_bit(x, source):  # releases x[0]: infinite loss on (0, 0) ~ (1, 0)
    ...     return x[0]
    >>> r = audit_relation(whitebox_audit, first_bit, booleans(2), claimed_epsilon=1,
    ...                    kind="source")
    >>> r.verdict, r.relation
    ('violation', 'booleans {0,1}^2, one bit flipped')
    """
    spec = from_relation(relation)
    report = audit(mechanism, **spec.kwargs(), **kwargs)
    return replace(report, relation=spec.relation)  # type: ignore[type-var]
