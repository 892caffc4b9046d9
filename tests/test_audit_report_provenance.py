"""Reports record where they were made (issue 10, item 8): exactdp, Python and audited
library versions, the platform, the command.  Expected values come from the standard
library (platform, importlib.metadata), not from exactdp.audit.provenance."""

from __future__ import annotations

import importlib.metadata
import json
import platform
import random
from fractions import Fraction

import pytest

from exactdp.audit import blackbox_audit, whitebox_audit
from exactdp.audit.provenance import command_line
from exactdp.counting import GeoSample
from tests._cli import run


def _expected_base() -> dict[str, str]:
    return {"exactdp": importlib.metadata.version("exactdp"),
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "platform": platform.platform()}


def test_whitebox_report_records_versions_and_platform() -> None:
    report = whitebox_audit(GeoSample(2, Fraction(1, 2)), claimed_epsilon=Fraction(1, 4))
    env = report.to_json()["environment"]
    for key, value in _expected_base().items():
        assert env[key] == value
    assert env["command"] is None  # API call: no command line
    assert f"exactdp {env['exactdp']}, {env['python']} on" in report.summary()


def test_audited_library_version_is_recorded() -> None:
    pytest.importorskip("diffprivlib")
    from exactdp.adapters import diffprivlib_geometric_truncated

    mech = diffprivlib_geometric_truncated(epsilon=1, lower=0, upper=2)
    report = whitebox_audit(mech, inputs=range(3), claimed_epsilon=1)
    libs = report.to_json()["environment"]["libraries"]
    assert libs["diffprivlib"] == importlib.metadata.version("diffprivlib")
    assert f"diffprivlib {libs['diffprivlib']}" in report.summary()


def test_blackbox_report_records_the_environment() -> None:
    rng = random.Random(1)
    report = blackbox_audit(lambda c: rng.randrange(2), inputs=range(2), claimed_epsilon=1,
                            draws=50)
    env = report.to_json()["environment"]
    assert {k: env[k] for k in _expected_base()} == _expected_base()


def test_cli_records_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "exactdp.counting:GeoSample(2, '1/2')", "--kind", "whitebox",
            "--claimed-epsilon", "1/4", "--inputs", "0..2", "--quiet"]
    code, out, _ = run(capsys, *argv, "--json")
    data = json.loads(out)
    assert code == 0
    # shell-quoted by hand: the target has a space and single quotes
    assert data["environment"]["command"] == (
        "exactdp audit 'exactdp.counting:GeoSample(2, '\"'\"'1/2'\"'\"')' --kind whitebox "
        "--claimed-epsilon 1/4 --inputs 0..2 --quiet --json")
    code, out, _ = run(capsys, *argv)
    assert code == 0 and f"  command: {command_line(argv)}" in out.splitlines()


def test_a_local_module_is_recorded_without_a_version() -> None:
    from audit_targets import severity_targets

    report = whitebox_audit(severity_targets.infinite, inputs=range(2), claimed_epsilon=1)
    assert report.to_json()["environment"]["libraries"]["audit_targets"] is None
    assert "audit_targets (no installed version)" in report.summary()
