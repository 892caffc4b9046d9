"""Regression tests of issue 9 for ``exactdp audit``: nothing silently wrong.

Each class of fault gets a named test that runs the command in-process (``main([...])``,
or a subprocess where a hang or a signal is the point) and asserts the exit status from
the table in README/DESIGN.md, a one-line message on stderr, no traceback, and completion
within a bound.  The toy targets live in ``tests/audit_targets``.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactdp.audit import blackbox_audit, load_target, parse_range, whitebox_audit
from exactdp.cli import main
from exactdp.counting import FastSample, GeoSample
from exactdp.params import ParameterError, ParameterTypeError, ResourceLimitError
from exactdp.randomness import CallableSource, RandomSource, SystemSource, check_source

TESTS = Path(__file__).parent
T = "audit_targets.samplers"
BLACKBOX = ["--kind", "blackbox", "--claimed-epsilon", "1", "--inputs", "0..8", "--draws",
            "50", "--quiet"]


def run(capsys: pytest.CaptureFixture[str], *argv: str,
        bound: float = 30) -> tuple[int, str, str]:
    start = time.monotonic()
    code = main(["audit", *argv])
    took = time.monotonic() - start
    out = capsys.readouterr()
    assert took < bound, f"took {took:.1f} s"
    assert "Traceback" not in out.err and "Traceback" not in out.out
    return code, out.out, out.err


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("exactdp audit: error: "), err
    return lines[0]


# ---------------------------------------------------------------- 1. checks that can fail

@pytest.mark.parametrize(("name", "kind", "text"), [
    ("returns_none", "bad_output", "returned None"),
    ("returns_huge", "out_of_range", "returned 1000000, outside the declared outputs 0..8"),
    ("returns_giant", "out_of_range", "<int of 332193 bits>"),
    ("returns_float", "bad_output", "float"),
    ("returns_nan", "bad_output", "nan"),
    ("returns_list", "bad_output", "list"),
    ("returns_bool", "bad_output", "bool"),
    ("returns_str_sometimes", "bad_output", "'3'"),
    ("returns_bad_hash", "bad_output", "_BadHash"),
    ("returns_bad_repr", "bad_output", "repr raised"),
    ("calls_exit", "raised", "SystemExit"),
])
def test_blackbox_garbage_is_broken_not_no_violation(
        capsys: pytest.CaptureFixture[str], name: str, kind: str, text: str) -> None:
    code, out, err = run(capsys, f"{T}:{name}", *BLACKBOX)
    assert code == 3, out
    assert f"FINDING [{kind}]" in out and text in out
    assert "NO VIOLATION" not in out and "BROKEN" in out
    assert err == ""


@pytest.mark.parametrize("name", ["EndlessBatch()", "NoneBatch()"])
def test_blackbox_bad_batches_are_broken(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, _ = run(capsys, f"{T}:{name}", *BLACKBOX, "--time-limit", "2")
    assert code == 3 and "FINDING [bad_output]: batch(0, 12)" in out


def test_blackbox_json_verdict_for_garbage(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, f"{T}:returns_none", *BLACKBOX, "--json")
    data = json.loads(out)
    assert code == 3 and data["verdict"] == "broken"
    assert data["findings"][0]["kind"] == "bad_output"


def test_library_blackbox_checks_outputs_without_a_declaration() -> None:
    for sampler in (lambda c: None, lambda c: float("nan"), lambda c: [{c}]):
        r = blackbox_audit(sampler, inputs=range(3), claimed_epsilon=1, draws=20)
        assert r.verdict == "broken" and r.exit_code == 3
        assert r.findings[0].kind == "bad_output"


@pytest.mark.parametrize(("name", "text"), [("wb_none", "returned None"),
                                            ("wb_float", "float")])
def test_whitebox_garbage_is_broken(capsys: pytest.CaptureFixture[str], name: str,
                                    text: str) -> None:
    code, out, _ = run(capsys, f"{T}:{name}", "--kind", "whitebox", "--claimed-epsilon", "1",
                       "--inputs", "0..3", "--quiet")
    assert code == 3 and "FINDING [bad_output]" in out and text in out


def test_whitebox_source_kind_garbage_is_broken(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, f"{T}:wb_source_none", "--kind", "whitebox", "--source",
                       "--claimed-epsilon", "1", "--inputs", "0..3", "--quiet")
    assert code == 3 and "returned None" in out


def test_source_kind_outputs_default_to_the_input_range(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "audit_targets.samplers:factory(100)", "--kind", "blackbox",
                       "--claimed-epsilon", "1", "--inputs", "0..2", "--draws", "20",
                       "--quiet")
    # factory(100) returns min(c + 100, 8) = 8, outside the input range 0..2
    assert code == 3 and "outside the declared outputs 0..2" in out


def test_audited_prints_do_not_spoil_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, f"{T}:prints", *BLACKBOX, "--json")
    assert json.loads(out)["verdict"] == "violation" and code == 1
    assert "chatter from the audited code" in err


# ---------------------------------------------------------------- 2. targets: exit 2


@pytest.mark.parametrize(("target", "text"), [
    ("audit_targets.raises_at_import:f", "raised RuntimeError: this module refuses"),
    ("audit_targets.exits_at_import:f", "raised SystemExit"),
    ("audit_targets.needs_missing_dependency:f",
     "needs module 'exactdp_no_such_dependency_xyz', which is not installed"),
    ("no_such_module_xyz:f", "no module named 'no_such_module_xyz'"),
    (f"{T}:nope", "has no attribute 'nope'"),
    (f"{T}:not_callable", "not callable"),
    (f"{T}:factory_raises(3)", "the factory raised ValueError: k = 3 is not supported"),
    (f"{T}:factory(x)", "must be one parenthesised list of Python literals"),
    (f"{T}:factory(*[1])", "no * or ** unpacking"),
    (f"{T}:factory(**{{'k': 1}})", "no * or ** unpacking"),
    (f"{T}:factory(1)(2)", "must be one parenthesised list"),
    (f"{T}:factory(__import__('os'))", "literals"),
    (f"{T}:not_callable(1)", "not callable"),
    (f"{T}:raising_property", "attribute 'outputs' raised RuntimeError"),
    ("nocolon", "must look like 'module:callable'"),
    (f"{T}:", "must be a (dotted) Python name"),
    (":f", "must look like 'module:callable'"),
    ("./no_such_file.py:f", "does not exist"),
    ("no_such_file.py:f", "does not exist"),
])
def test_bad_targets_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], target: str,
                                             text: str) -> None:
    code, out, err = run(capsys, target, *BLACKBOX)
    assert code == 2 and out == ""
    assert text in one_line_error(err)


def test_module_that_loops_at_import_is_stopped_by_the_time_limit(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "audit_targets.loops_at_import:f", *BLACKBOX,
                       "--time-limit", "1", bound=10)
    assert code == 2 and "did not finish within 1 s (--time-limit)" in one_line_error(err)


def test_factory_that_hangs_is_stopped_by_the_time_limit(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, f"{T}:factory_hangs()", *BLACKBOX, "--time-limit", "1",
                       bound=10)
    assert code == 2 and "did not return within 1 s" in one_line_error(err)


def test_import_loop_in_a_subprocess_is_bounded() -> None:
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from exactdp.cli import main; sys.exit(main())",
         "audit", "audit_targets.loops_at_import:f", *BLACKBOX, "--time-limit", "1"],
        cwd=TESTS, capture_output=True, text=True, timeout=60, check=False)
    assert time.monotonic() - start < 30
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_syntax_error_names_file_and_line(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "broken_mech.py").write_text("x = 1\ndef f(c:\n    return c\n")
    monkeypatch.chdir(tmp_path)
    for target in ("broken_mech:f", "./broken_mech.py:f"):
        code, _, err = run(capsys, target, *BLACKBOX)
        line = one_line_error(err)
        assert code == 2 and "does not compile" in line and "line 2" in line


def test_file_targets_and_cwd_modules_are_found(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cwd_mech_9.py").write_text("def f(c):\n    return None\n")
    monkeypatch.chdir(tmp_path)
    for target in ("./cwd_mech_9.py:f", "cwd_mech_9.py:f", f"{tmp_path}/cwd_mech_9.py:f",
                   "cwd_mech_9:f"):
        code, out, err = run(capsys, target, *BLACKBOX)
        assert code == 3 and "returned None" in out and err == "", target
    sys.modules.pop("cwd_mech_9", None)


def test_non_py_path_and_directory_targets(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    (tmp_path / "dir.py").mkdir()
    code, _, err = run(capsys, f"{tmp_path}/dir.py:f", *BLACKBOX)
    assert code == 2 and "is not a regular file" in one_line_error(err)
    code, _, err = run(capsys, f"{tmp_path}/mech.txt:f", *BLACKBOX)
    assert code == 2 and "not a .py file" in one_line_error(err)


def test_library_load_target_raises_typed_errors() -> None:
    with pytest.raises(ParameterError, match="factory raised"):
        load_target(f"{T}:factory_raises(1)")
    assert callable(load_target(f"{T}:factory(1)"))


# ---------------------------------------------------------------- 2b. misbehaving mechanisms: 3

def test_mechanism_that_hangs_is_broken(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, f"{T}:hangs", *BLACKBOX, "--time-limit", "1", bound=10)
    assert code == 3 and "FINDING [timeout]" in out


# ---------------------------------------------------------------- 3. sizes and parameters

@pytest.mark.parametrize(("args", "text"), [
    (["--inputs", "0..1000000000000"], "1000000000001 values, more than the limit of 10000"),
    (["--inputs", "0..8", "--draws", "10000000"], "about 110000000 times"),
    (["--inputs", "0..8", "--max-inputs", "3"], "more than the limit of 3"),
    (["--inputs", "0..8", "--draws", "1000", "--max-calls", "100"], "about 11000 times"),
    (["--inputs", "\uff10..8"], "ASCII digits"),
    (["--inputs", "1_0..20"], "ASCII digits"),
    (["--inputs", "0..1" + "0" * 200], "at most 100 digits"),
    (["--inputs", "5..3"], "empty"),
    (["--inputs", "5..5"], "at least two values"),
    (["--inputs", "0..8", "--alpha", "0"], "(0, 1)"),
    (["--inputs", "0..8", "--alpha", "1"], "(0, 1)"),
    (["--inputs", "0..8", "--alpha", "0.5.1"], "is not a number"),
    (["--inputs", "0..8", "--draws", "0"], "positive integer"),
    (["--inputs", "0..8", "--draws", "1/2"], "positive integer"),
    (["--inputs", "0..8", "--time-limit", "0"], "whole number of seconds"),
    (["--inputs", "0..8", "--time-limit", "1e9"], "whole number of seconds"),
    (["--inputs", "0..8", "--time-limit", "1/2"], "whole number of seconds"),
    (["--inputs", "0..8", "--claimed-delta", "1"], "[0, 1)"),
    (["--inputs", "0..8", "--randomness-size", "4"], "--kind whitebox only"),
    (["--inputs", "0..8", "--monotone"], "--kind whitebox only"),
])
def test_blackbox_sizes_and_parameters(capsys: pytest.CaptureFixture[str], args: list[str],
                                       text: str) -> None:
    code, out, err = run(capsys, f"{T}:identity", "--kind", "blackbox", "--claimed-epsilon",
                         "1", "--quiet", *args, bound=10)
    assert code == 2 and out == ""
    assert text in one_line_error(err)


GEO = "exactdp.counting:GeoSample(8, '1/2')"


@pytest.mark.parametrize(("args", "text"), [
    (["--claimed-epsilon", "1e-1000000000"], "exponent"),
    (["--claimed-epsilon", "10000"], "[0, 1000]"),
    (["--claimed-epsilon", "-1"], "[0, 1000]"),
    (["--claimed-epsilon", "1/" + "7" * 200], "digits"),
    (["--claimed-epsilon", "\u0661"], "is not a number"),
    (["--claimed-epsilon", "1/4", "--claimed-delta", "1"], "[0, 1)"),
    (["--claimed-epsilon", "1/4", "--claimed-delta=-1/2"], "[0, 1)"),
    (["--claimed-epsilon", "1/4", "--draws", "5"], "--kind blackbox only"),
    (["--claimed-epsilon", "1/4", "--alpha", "1/5"], "--kind blackbox only"),
    (["--claimed-epsilon", "1/4", "--randomness-size", "0"], "positive integer"),
    (["--claimed-epsilon", "1/4", "--outputs", "0..10000000000000"],
     # GeoSample(8, 1/2) has d = 703125 (20 bits): 20 + 2 search steps per output
     "9 inputs x 10000000000001 outputs x 22 binary-search steps"),
])
def test_whitebox_sizes_and_parameters(capsys: pytest.CaptureFixture[str], args: list[str],
                                       text: str) -> None:
    code, out, err = run(capsys, GEO, "--kind", "whitebox", "--inputs", "0..8", "--quiet",
                         *args, bound=10)
    assert code == 2 and out == ""
    assert text in one_line_error(err)


def test_whitebox_enumeration_cost_is_inputs_times_d(capsys: pytest.CaptureFixture[str]) -> None:
    # wb_none has d = 4: 4 inputs x (4 values of u + a table of 4 outputs), plus the trace
    # allowance
    code, _, err = run(capsys, f"{T}:wb_none", "--kind", "whitebox", "--claimed-epsilon", "1",
                       "--inputs", "0..3", "--max-calls", "10", "--quiet")
    assert code == 2 and "4 inputs x (d = 4 values of u + 4 outputs)" in one_line_error(err)


def test_inputs_outside_an_exactdp_mechanism_domain(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, GEO, "--kind", "whitebox", "--claimed-epsilon", "1/4",
                       "--inputs", "0..9", "--quiet")
    assert code == 2 and "outside the mechanism's domain" in one_line_error(err)


def test_library_refuses_giant_ranges_without_building_them() -> None:
    start = time.monotonic()
    with pytest.raises(ResourceLimitError, match="max_inputs"):
        blackbox_audit(lambda c: c, inputs=range(10**12), claimed_epsilon=1, draws=5)
    with pytest.raises(ResourceLimitError, match="max_inputs"):
        whitebox_audit(lambda c, u: c, inputs=range(10**12), claimed_epsilon=1, d=2)
    with pytest.raises(ResourceLimitError, match="max_inputs"):
        blackbox_audit(lambda c: c, inputs=iter(int, 1),  # type: ignore[arg-type]
                       claimed_epsilon=1, draws=5)
    assert time.monotonic() - start < 5
    assert parse_range("-3..3") == range(-3, 4)


def test_source_kind_exploration_is_bounded_in_all() -> None:
    def mech(c: int, source: RandomSource) -> int:
        return (source.uniform(64) + c) % 2

    with pytest.raises(ResourceLimitError, match="max_calls"):
        whitebox_audit(mech, inputs=range(4), claimed_epsilon=1, max_calls=100)
    assert whitebox_audit(mech, inputs=range(4), claimed_epsilon=1,
                          max_calls=256).verdict == "pass"


def test_references_are_validated_before_sampling() -> None:
    calls = []

    def sampler(c: int) -> int:
        calls.append(c)
        return 0

    bad_refs = [lambda c: {0: 0.5, 1: 0.5}, lambda c: {0: Fraction(1, 3)},
                lambda c: [Fraction(1)], lambda c: {0: Fraction(3, 2), 1: Fraction(-1, 2)},
                {0: {0: Fraction(1)}}]
    for ref in bad_refs:
        with pytest.raises((ParameterError, ParameterTypeError)):
            blackbox_audit(sampler, inputs=range(2), claimed_epsilon=1, draws=5,
                           reference=ref)  # type: ignore[arg-type]
    assert calls == []


# ---------------------------------------------------------------- 4. interrupts

def test_keyboard_interrupt_raised_by_the_mechanism_is_broken_not_a_ctrl_c(
        capsys: pytest.CaptureFixture[str]) -> None:
    # No SIGINT arrived: the audited code raised KeyboardInterrupt itself (a real Ctrl-C is
    # still 130: tests/test_interrupts.py).
    code, out, err = run(capsys, f"{T}:raises_keyboard_interrupt", *BLACKBOX)
    assert code == 3 and out == ""
    assert err.strip().endswith("exactdp audit: BROKEN: the audited code raised "
                                "KeyboardInterrupt itself (no Ctrl-C was received); a "
                                "mechanism must not raise it")


def test_keyboard_interrupt_propagates_out_of_the_library() -> None:
    def sampler(c: int) -> int:
        raise KeyboardInterrupt

    def mech(c: int, u: int) -> int:
        raise KeyboardInterrupt

    mech.d = 4  # type: ignore[attr-defined]
    with pytest.raises(KeyboardInterrupt):
        blackbox_audit(sampler, inputs=range(2), claimed_epsilon=1, draws=5)
    with pytest.raises(KeyboardInterrupt):
        whitebox_audit(mech, inputs=range(2), claimed_epsilon=1)
    with pytest.raises(KeyboardInterrupt):
        whitebox_audit(lambda c, s: sampler(c), inputs=range(2), claimed_epsilon=1,
                       kind="source")


def test_ctrl_c_during_a_hanging_audit_exits_130(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    # The child restores the default SIGINT handler: a test runner started in the
    # background inherits SIGINT ignored, which an interactive user's shell does not.
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from exactdp.cli import main; sys.exit(main())")
    proc = subprocess.Popen(
        [sys.executable, "-c", code,
         "audit", f"{T}:hangs", *BLACKBOX, "--time-limit", "60", "--output", str(out)],
        cwd=TESTS, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and stdout == ""
    assert stderr.strip().splitlines()[-1] == "exactdp audit: interrupted; nothing was written"
    assert not out.exists()


# ---------------------------------------------------------------- 5. wrong source objects

WRONG_SOURCES = [5, random.Random(1), "seed", b"x", None.__class__, object(), 1.5,
                 SystemSource, RandomSource()]


@pytest.mark.parametrize("source", WRONG_SOURCES, ids=repr)
def test_wrong_source_objects_are_typed_errors(source: object) -> None:
    from exactdp.histograms.basic import BasicHistogram
    from exactdp.histograms.data import Dataset, Universe

    universe = Universe(8)
    data = Dataset.of(universe, [1, 2, 2])
    wrong: Any = source
    calls = [lambda: GeoSample(8, "1/2").sample(3, source=wrong),
             lambda: FastSample(8, "1/2", "1/4").sample(3, source=wrong),
             lambda: BasicHistogram(GeoSample(3, 1), universe).release(data, source=wrong)]
    for call in calls:
        with pytest.raises(ParameterTypeError, match="source") as info:
            call()
        assert "SystemSource()" in str(info.value)


def test_check_source_accepts_sources_and_names_the_fix() -> None:
    src = SystemSource()
    assert check_source(src) is src
    with pytest.raises(ParameterTypeError, match=r"SeededSource\(5\)"):
        check_source(5)
    with pytest.raises(ParameterTypeError, match="not an instance"):
        check_source(SystemSource)


def test_a_source_returning_values_outside_its_domain_is_refused() -> None:
    class Bad(RandomSource):
        def uniform(self, d: int) -> int:
            return 0

    with pytest.raises(ParameterError, match=r"outside \[1, "):
        GeoSample(8, "1/2").sample(3, source=Bad())
    with pytest.raises(ParameterError):
        GeoSample(8, "1/2").sample(3, source=CallableSource(lambda d: d + 1))


# ---------------------------------------------------------------- 6. help

def test_help_states_verdicts_and_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["audit", "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for phrase in ("NO VIOLATION DETECTED", "never a proof of privacy", "BROKEN",
                   "nothing audited (2)", "of its randomness (3)", "exactdp --help",
                   "--max-calls", "--max-inputs", "--json", "--output PATH", "--force",
                   "FILE.py:CALLABLE"):
        assert phrase in text, phrase
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "130 interrupted" in text and "3 the audited mechanism is broken" in text


# ---------------------------------------------------------------- fuzz: the argument grammar

_MODULES = ["audit_targets.samplers", "exactdp.counting", "no_such_mod", "./x.py", "a..b",
            "", " ", "audit_targets.raises_at_import", "1abc", "exactdp.counting.GeoSample"]
_NAMES = ["identity", "returns_none", "factory", "factory_raises", "GeoSample", "not_callable",
          "nope", "", "a.b", "1x", "identity.__call__", "FastSample"]
_ARGS = ["", "()", "(1)", "(8, '1/2')", "(x)", "(", ")", "(1)(2)", "(**{})", "(*[])",
         "(k=1)", "(8, epsilon=0.5)", "(1e999)", "((((((((1))))))))", "(" * 300 + ")" * 300,
         "([1, 2], {'a': None})", "(\u0661)"]
_RANGES = ["0..8", "0..1", "-1..1", "8..0", "0..", "..8", "0...8", "0..1000000000000",
           "\uff10..8", "0..8 ", "a..b", "", "0..1e3", "0..0x10"]


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(module=st.sampled_from(_MODULES), name=st.sampled_from(_NAMES),
       args=st.sampled_from(_ARGS), inputs=st.sampled_from(_RANGES),
       kind=st.sampled_from(["blackbox", "whitebox"]),
       extra=st.lists(st.sampled_from([["--draws", "20"], ["--alpha", "1/3"],
                                       ["--claimed-delta", "1/7"], ["--source"],
                                       ["--outputs", "0..3"], ["--randomness-size", "4"],
                                       ["--max-calls", "1000"], ["--time-limit", "2"]]),
                      max_size=3))
def test_fuzz_audit_arguments_end_cleanly(capsys: pytest.CaptureFixture[str], module: str,
                                          name: str, args: str, inputs: str, kind: str,
                                          extra: list[list[str]]) -> None:
    flat = [a for pair in extra for a in pair]
    if kind == "blackbox" and "--draws" not in flat:
        flat += ["--draws", "20"]
    start = time.monotonic()
    code = main(["audit", f"{module}:{name}{args}", "--kind", kind, "--claimed-epsilon", "1",
                 f"--inputs={inputs}", "--quiet", *flat])
    out = capsys.readouterr()
    assert time.monotonic() - start < 20
    assert code in (0, 1, 2, 3), (code, out.err)
    assert "Traceback" not in out.err and "internal error" not in out.err
    if code == 2:
        assert out.out == "" and len(out.err.strip().splitlines()) == 1


# ---------------------------------------------------------------- red-team findings

def test_a_huge_declared_output_range_is_refused_by_size(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    # outputs = range(0, 10**30) made len() overflow: "internal error", exit 4.
    (tmp_path / "huge_out.py").write_text(
        "def f(c, u):\n    return c\nf.d = 4\nf.outputs = range(0, 10**30)\n")
    wb = ["--kind", "whitebox", "--claimed-epsilon", "1", "--inputs", "0..1", "--quiet"]
    code, out, err = run(capsys, f"{tmp_path}/huge_out.py:f", *wb)
    assert code == 2 and out == ""
    assert "more than the limit" in one_line_error(err)
    code, out, err = run(capsys, f"{tmp_path}/huge_out.py:f", *wb, "--outputs",
                         "0.." + "9" * 40)
    assert code == 2 and out == "" and "more than the limit" in one_line_error(err)
    with pytest.raises(ResourceLimitError, match="outputs"):
        whitebox_audit(lambda c, u: c, inputs=range(2), claimed_epsilon=1, d=4,
                       outputs=range(10**30))


def test_large_d_without_monotone_is_a_usage_error(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    # It was verdict BROKEN (exit 3): the mechanism had not been called once; the audit
    # simply cannot enumerate d values.  Nothing was audited: exit 2, before any call.
    (tmp_path / "big_d.py").write_text(
        "calls = []\ndef f(c, u):\n    calls.append(u)\n    return c\nf.d = 10**30\n")
    code, out, err = run(capsys, f"{tmp_path}/big_d.py:f", "--kind", "whitebox",
                         "--claimed-epsilon", "1", "--inputs", "0..1", "--quiet")
    assert code == 2 and out == ""
    assert "too large to enumerate" in one_line_error(err) and "--monotone" in err
    assert __import__("big_d").calls == []
