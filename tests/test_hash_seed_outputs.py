"""The hash-seed confirmation compares outputs as the audit normalised them: a mechanism
returning a list (or a float) is confirmed in the other processes, not reported BROKEN
because the list there differs from the tuple recorded here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MECHANISMS = '''
def rr_list(c, rng):  # randomized response at ln 3, its output a one-item list
    return [c if rng.random() < 0.75 else 1 - c]


def rr_list_bug(c, rng):  # the same at ln 4 (its confirmation must not hide the violation)
    return [c if rng.random() < 0.8 else 1 - c]
'''


@pytest.mark.parametrize(("name", "status", "verdict"), [("rr_list", 0, "PASS"),
                                                          ("rr_list_bug", 1, "VIOLATION")])
def test_a_list_output_is_confirmed_under_other_hash_seeds(tmp_path: Path, name: str,
                                                           status: int, verdict: str) -> None:
    (tmp_path / "listmechs.py").write_text(MECHANISMS, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONHASHSEED", None)
    done = subprocess.run(
        [sys.executable, "-m", "exactdp.cli", "audit", f"listmechs:{name}", "--kind",
         "whitebox", "--rng", "random", "--claimed-epsilon", "ln 3", "--inputs", "0..1",
         "--quiet"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        check=False)
    assert done.returncode == status, (done.stdout, done.stderr)
    assert f"verdict: {verdict}" in done.stdout
    if status == 0:
        assert "confirmed in 2 more processes" in done.stdout
