"""Every neighbour relation of exactdp (exactdp.neighbours) and of the audit's ``--inputs``
grammar is symmetric and holds exactly the pairs its definition names: none missing, none
extra."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from itertools import combinations_with_replacement, product
from typing import Any

from exactdp.audit.inputs import parse_inputs
from exactdp.audit.targets import neighbour_pairs
from exactdp.certificate import Certificate, ClaimReport
from exactdp.neighbours import (
    Relation,
    booleans,
    counts,
    datasets,
    vector_neighbours,
    vectors,
)

CLAIM = "Neighbour relations: symmetric and complete against brute force (library and --inputs)"
STATEMENT = """For every relation -- counts [n] with c ~ c+1; datasets of at most n elements under
add-remove and replace-one; integer boxes {lo..hi}^p under one-coordinate, l1 and linf
adjacency with sensitivity beta; booleans {0,1}^p -- the domain is every point the definition
names, and the ordered pairs (relation.ordered_pairs(), relation.neighbours(x),
vector_neighbours(u, ...), relation.adjacent) are exactly the pairs (x, y) of the domain with
x ~ y by the definition: every pair in both orders, none missing and none extra.  The audit's
--inputs grammar (LO..HI, datasets(...), vectors(...), booleans(...)) yields the same domain
and each edge once."""
PROOF_IDEA = """Brute force, written from the definitions without the library: the domain by
itertools (product, combinations_with_replacement), adjacency by counting (|a - b| = 1;
multisets differing by one added element, or by one element replaced by another, via
Counter; coordinates that differ, their l1 and linf distances; one flipped bit), over every
ordered pair of the domain.  The library's pairs, each point's neighbours, the adjacency
predicate and the --inputs edges (with their reverses) must equal the brute-force set;
symmetry is checked on the library's pairs themselves.  Boxes with p = 1..3, widths 1..4
and beta = 1..3 (so that moves reach the full distance beta in every direction, also at the
box's edges), datasets over 2-3 elements of size up to 3 (quick) and more on the full grid."""

Pair = tuple[Hashable, Hashable]


def _brute(points: Iterable[Hashable], adjacent: Callable[[Any, Any], bool]) -> set[Pair]:
    pts = list(points)
    return {(x, y) for x in pts for y in pts if x != y and adjacent(x, y)}


def _added(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """b is a with one element added."""
    return len(b) == len(a) + 1 and not Counter(a) - Counter(b)


def _replaced(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    gone, new = Counter(a) - Counter(b), Counter(b) - Counter(a)
    return len(a) == len(b) and sum(gone.values()) == 1 == sum(new.values())


def _moves(kind: str, beta: int) -> Callable[[Any, Any], bool]:
    def adjacent(u: tuple[int, ...], v: tuple[int, ...]) -> bool:
        diff = [abs(a - b) for a, b in zip(u, v)]
        if kind == "one-coordinate":
            return sum(1 for d in diff if d) == 1 and max(diff) <= beta
        if kind == "l1":
            return 0 < sum(diff) <= beta
        return 0 < max(diff) <= beta
    return adjacent


def _box(p: int, lo: int, hi: int) -> list[tuple[int, ...]]:
    return list(product(range(lo, hi + 1), repeat=p))


def _multisets(items: list[int], n: int) -> list[tuple[int, ...]]:
    return [tuple(c) for m in range(n + 1) for c in combinations_with_replacement(items, m)]


def _compare(rel: Relation[Any], points: list[Any], want: set[Pair]) -> list[str]:
    """What differs between the library relation and the brute force (empty: nothing)."""
    bad = []
    if set(rel.points) != set(points) or len(rel.points) != len(points):
        bad.append(f"domain: {len(rel.points)} points, brute force {len(points)}")
    got = list(rel.ordered_pairs())
    pairs = set(got)
    if len(got) != len(pairs):
        bad.append("ordered_pairs lists a pair twice")
    if missing := want - pairs:
        bad.append(f"{len(missing)} pairs missing, e.g. {min(missing, key=repr)}")
    if extra := pairs - want:
        bad.append(f"{len(extra)} pairs extra, e.g. {min(extra, key=repr)}")
    if asym := {(x, y) for x, y in pairs if (y, x) not in pairs}:
        bad.append(f"{len(asym)} pairs without their reverse, e.g. {min(asym, key=repr)}")
    by_point = {(x, y) for x in rel.points for y in rel.neighbours(x)}
    if by_point != want:
        bad.append("neighbours(x) differs from the brute force")
    adj = {(x, y) for x in rel.points for y in rel.points if x != y and rel.adjacent(x, y)}
    if adj != want:
        bad.append("adjacent(x, y) differs from the brute force")
    return bad


def _grammar(text: str, points: list[Any], want: set[Pair]) -> list[str]:
    spec = parse_inputs(text)
    bad = []
    if list(spec.inputs) != list(points) and set(spec.inputs) != set(points):
        bad.append(f"--inputs {text}: domain differs")
    edges = list(spec.neighbours) if spec.neighbours is not None else \
        neighbour_pairs(list(spec.inputs), None)
    both = {e for e in edges} | {(y, x) for x, y in edges}
    if spec.neighbours is not None and len(set(map(frozenset, edges))) != len(edges):
        bad.append(f"--inputs {text}: an edge listed twice")
    if both != want:
        bad.append(f"--inputs {text}: {len(want - both)} pairs missing, {len(both - want)} "
                   f"extra")
    return bad


def _cert(name: str, cases: list[tuple[str, list[str], int]]) -> Certificate:
    wrong = [(label, why) for label, why, _ in cases if why]
    edges = sum(n for _, _, n in cases)
    return Certificate(f"{CLAIM} ({name})", name, {"relations": len(cases)},
                       f"{name}: {len(cases)} relations, {edges} ordered pairs by brute force",
                       len(wrong), "0 relations differ from the brute force", not wrong,
                       {"wrong": [{"relation": label, "differs": why} for label, why in
                                  wrong[:6]]})


def counts_certificate(full: bool) -> Certificate:
    cases = []
    for n in range(1, 9 if full else 5):
        pts = list(range(n + 1))
        want = _brute(pts, lambda a, b: abs(a - b) == 1)
        cases.append((f"counts({n})", _compare(counts(n), pts, want), len(want)))
        lo = n - 3
        rng = list(range(lo, n + 1))
        cases.append((f"--inputs {lo}..{n}", _grammar(f"{lo}..{n}", rng,
                                                      _brute(rng, lambda a, b: abs(a - b) == 1)),
                      len(want)))
    return _cert("counts", cases)


def datasets_certificate(full: bool) -> Certificate:
    cases = []
    grid = [(2, 2), (3, 2), (2, 3)] + ([(3, 3), (4, 2)] if full else [])
    for size, n in grid:
        items = list(range(1, size + 1))
        pts = _multisets(items, n)
        for kind, adjacent in (("add-remove", lambda a, b: _added(a, b) or _added(b, a)),
                               ("replace-one", _replaced)):
            want = _brute(pts, adjacent)
            cases.append((f"datasets({items}, {n}, {kind})",
                          _compare(datasets(items, n, kind), pts, want), len(want)))
            cases.append((f"--inputs datasets(1..{size}, {n}, {kind})",
                          _grammar(f"datasets(1..{size}, {n}, {kind})", pts, want), len(want)))
    return _cert("datasets", cases)


def vectors_certificate(full: bool) -> Certificate:
    cases = []
    grid = [(1, -2, 2), (2, -1, 1), (2, 0, 3), (3, -1, 1)] + ([(2, -2, 2), (3, 0, 2)]
                                                             if full else [])
    for p, lo, hi in grid:
        pts = _box(p, lo, hi)
        for beta in (1, 2, 3):
            for kind in ("one-coordinate", "l1", "linf"):
                want = _brute(pts, _moves(kind, beta))
                bad = _compare(vectors(p, lo, hi, beta, kind), pts, want)
                listed = {(u, v) for u in pts for v in vector_neighbours(u, lo, hi, beta, kind)}
                if listed != want:
                    bad.append("vector_neighbours differs from the brute force")
                label = f"vectors({p}, {lo}..{hi}, {beta}, {kind})"
                cases.append((label, bad, len(want)))
                if beta <= 2:
                    cases.append((f"--inputs {label}",
                                  _grammar(f"vectors({p}, {lo}..{hi}, {beta}, {kind})", pts,
                                           want), len(want)))
    return _cert("vectors", cases)


def booleans_certificate(full: bool) -> Certificate:
    cases = []
    for p in range(1, 6 if full else 4):
        pts = _box(p, 0, 1)
        want = _brute(pts, lambda u, v: sum(a != b for a, b in zip(u, v)) == 1)
        cases.append((f"booleans({p})", _compare(booleans(p), pts, want), len(want)))
        cases.append((f"--inputs booleans({p})", _grammar(f"booleans({p})", pts, want),
                      len(want)))
    return _cert("booleans", cases)


def check(full: bool) -> ClaimReport:
    certs = [counts_certificate(full), datasets_certificate(full), vectors_certificate(full),
             booleans_certificate(full)]
    wrong = sum(int(c.worst or 0) for c in certs)
    return ClaimReport(CLAIM, "; ".join(c.domain.replace(" by brute force", "") for c in certs),
                       f"{wrong} relations differ", "0 (none missing, none extra, symmetric)",
                       certs)
