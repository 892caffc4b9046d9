"""Neighbour relations in the audit (issue 10, item 5): the --inputs grammar and
audit_relation, over exactdp.neighbours.  Edge counts are counted by hand in each test."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from audit_targets import relation_targets as targets

from exactdp.audit import blackbox_audit, whitebox_audit
from exactdp.audit.inputs import audit_relation, parse_inputs
from exactdp.neighbours import datasets
from exactdp.params import ParameterError
from tests._cli import one_line_error, run

T = "audit_targets.relation_targets"


def test_range_keeps_consecutive_neighbours() -> None:
    spec = parse_inputs("0..8")
    assert spec.inputs == range(9) and spec.neighbours is None


def test_datasets_add_remove_and_replace_one() -> None:
    add = parse_inputs("datasets(0..1, 2, add-remove)")
    assert add.inputs == ((), (0,), (1,), (0, 0), (0, 1), (1, 1))
    # by hand: () ~ (0,), (1,); (0,) ~ (0, 0), (0, 1); (1,) ~ (0, 1), (1, 1)
    assert sorted(add.neighbours or []) == sorted([
        ((), (0,)), ((), (1,)), ((0,), (0, 0)), ((0,), (0, 1)), ((1,), (0, 1)),
        ((1,), (1, 1))])
    rep = parse_inputs("datasets(0..1,2,replace-one)")
    assert sorted(rep.neighbours or []) == [((0,), (1,)), ((0, 0), (0, 1)), ((0, 1), (1, 1))]


def test_vectors_l1_and_one_coordinate_differ() -> None:
    one = parse_inputs("vectors(2, 0..2, 2, one-coordinate)")
    l1 = parse_inputs("vectors(2, 0..2, 2, l1)")
    assert len(one.inputs) == len(l1.inputs) == 9
    # one-coordinate: each of the 6 lines of 3 points has 3 pairs, all within 2 -> 18;
    # l1 adds the 8 diagonal steps (+-1, +-1) of the four unit squares -> 26
    assert len(one.neighbours or []) == 18 and len(l1.neighbours or []) == 26
    assert len(parse_inputs("booleans(3)").neighbours or []) == 12  # cube edges


@pytest.mark.parametrize(("text", "words"), [
    ("datasets(0..1, 2)", ["expected datasets(", "3 arguments"]),
    ("vectors(2, 0..1, x, l1)", ["BETA", "must be an integer"]),
    ("datasets(0..1, 2, swap)", ["kind", "swap"]),
    ("booleans()", ["booleans(P)"]),
    ("datasets(0..99, 2, add-remove)", ["at most 64"]),
    ("nonsense", ["LO..HI"]),
])
def test_grammar_errors(text: str, words: list[str]) -> None:
    with pytest.raises(ParameterError) as info:
        parse_inputs(text)
    for w in words:
        assert w in str(info.value)


def test_audit_relation_passes_with_geosample_ratio() -> None:
    # the number of 1s moves by at most 1 between neighbours: worst ratio 5/4 (GeoSample,
    # eps = 1/2: 1 + 2^-2, Theorem 4.7), and e^(1/4) > 1.284 > 5/4.  Replace-one keeps the
    # size, so the loop over the data runs as often on both neighbours.
    relation = datasets((0, 1), 2, "replace-one")
    report = audit_relation(whitebox_audit, targets.ones_count, relation,
                            claimed_epsilon=Fraction(1, 4), kind="source")
    assert report.verdict == "pass" and report.worst is not None
    assert report.worst.ratio == Fraction(5, 4)
    assert report.relation == relation.name and f"neighbours: {relation.name}" in report.summary()
    assert report.to_json()["neighbours"] == relation.name
    # under add-remove the same outputs pass, but the loop's length shows the size: TIMING
    grown = audit_relation(whitebox_audit, targets.ones_count, datasets((0, 1), 2,
                                                                        "add-remove"),
                           claimed_epsilon=Fraction(1, 4), kind="source")
    assert grown.worst is not None and grown.worst.ratio == Fraction(5, 4)
    assert grown.verdict == "violation" and "TIMING" in grown.summary()


def test_audit_relation_blackbox() -> None:
    import random

    rng = random.Random(3)
    relation = datasets((0, 1), 1, "replace-one")  # (0,) ~ (1,) only

    def leak(data: tuple[int, ...]) -> int:
        return data[0] if data and rng.randrange(4) else 0

    report = audit_relation(blackbox_audit, leak, relation, claimed_epsilon=1, draws=400)
    assert report.relation == relation.name and report.privacy is not None
    assert {report.privacy.a, report.privacy.b} <= set(relation.points)


def test_cli_datasets_pass_and_replace_one_violation(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    code, out, _ = run(capsys, "audit", f"{T}:ones_count", "--kind", "whitebox", "--source",
                       "--inputs", "datasets(0..1, 2, replace-one)", "--outputs", "0..2",
                       "--claimed-epsilon", "1/4", "--quiet", "--json")
    data = json.loads(out)
    assert code == 0 and data["worst_ratio"]["ratio"] == "5/4"  # same size: same loop
    assert data["neighbours"].startswith("datasets of <= 2 elements")
    code, out, _ = run(capsys, "audit", f"{T}:value_sum", "--kind", "whitebox", "--source",
                       "--inputs", "datasets(0..2, 2, replace-one)", "--outputs", "0..4",
                       "--claimed-epsilon", "1/4", "--quiet", "--json")
    data = json.loads(out)
    assert code == 1 and data["verdict"] == "violation"
    w = data["worst_ratio"]
    a, b = (tuple(int(v) for v in x) for x in (w["numerator_input"], w["denominator_input"]))
    assert len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1


def test_cli_grammar_error_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "audit", f"{T}:ones_count", "--kind", "whitebox", "--source",
                         "--inputs", "datasets(0..1, 2)", "--claimed-epsilon", "1")
    assert code == 2 and out == ""
    one_line_error(err, "--inputs", "3 arguments")


def test_blackbox_with_given_pairs_does_not_claim_consecutive_neighbours() -> None:
    import random

    rng = random.Random(4)
    report = blackbox_audit(lambda c: rng.randrange(2), inputs=[0, 1, 2], claimed_epsilon=1,
                            draws=50, neighbours=[(0, 2)])
    assert "neighbours: the 1 given pairs (both orders)" in report.summary()
    assert "c and c+1" not in report.summary()


def test_a_pair_naming_an_input_not_audited_is_a_usage_error() -> None:
    # the linf relation of all of {0,1}^3 with only some of its vectors audited: a pair reaching
    # past them names no explored law, and must be refused before any work, naming the pair
    relation = parse_inputs("vectors(3, 0..1, 1, linf)")
    some = list(relation.inputs)[:3]
    pairs = relation.kwargs()["neighbours"]
    first = next(p for p in pairs if p[0] not in some or p[1] not in some)
    named = first[0] if first[0] not in some else first[1]
    for audit in (lambda **kw: whitebox_audit(targets.ones_count, claimed_epsilon=1,
                                              kind="source", **kw),
                  lambda **kw: blackbox_audit(lambda c: 0, claimed_epsilon=1, draws=10, **kw)):
        with pytest.raises(ParameterError, match="not among the audited inputs") as err:
            audit(inputs=some, neighbours=pairs)
        assert f"names {named!r}," in str(err.value)
    with pytest.raises(ParameterError, match="must be a pair"):
        whitebox_audit(targets.ones_count, claimed_epsilon=1, kind="source", inputs=[0, 1],
                       neighbours=[(0, 1, 2)])
    # the pairs within the audited inputs are accepted as before
    inside = [p for p in pairs if p[0] in some and p[1] in some]
    assert inside
    report = blackbox_audit(lambda c: 0, claimed_epsilon=1, draws=10, inputs=some,
                            neighbours=inside)
    assert report.verdict == "no violation detected"
