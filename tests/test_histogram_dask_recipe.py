"""The documented Dask-dataframe recipe, run as printed, hands its counts to ``exactdp
histogram --counts``.

The recipe's code block is read from the user guide (``exactdp/docs/guide/scale.md``) and
executed verbatim in a directory holding a
generated ``events/*.parquet`` (two files, so the counting really is partitioned), so the
page and this test cannot drift apart.  The counts it writes must be the counts computed
directly from the rows; the release from them must be the release from the rows file (same
seed; pure-sparse reads the data only through ``n`` and the counts); and the validation must
refuse a duplicated element, a zero count, and a null the recipe dropped (``--rows``).
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from exactdp.histograms.counts_source import read_counts_csv
from exactdp.histograms.data import Universe
from tests._cli import histogram_report, one_line_error, run

GUIDE = Path(__file__).resolve().parent.parent / "exactdp" / "docs" / "guide" / "scale.md"
COMMON = ["--algorithm", "pure-sparse", "--epsilon", "1/2", "--universe-size", "2^64",
          "--seed", "5", "--quiet"]


def recipe() -> str:
    """The ```python block of the guide's page that starts with ``# Dask dataframe``."""
    blocks = re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(), re.MULTILINE | re.DOTALL)
    found = [b for b in blocks if b.startswith("# Dask dataframe")]
    assert len(found) == 1, f"{GUIDE} must hold exactly one Dask dataframe recipe"
    return found[0]


@pytest.fixture
def dask_dataframe() -> None:
    pytest.importorskip("pandas", reason="the Dask dataframe recipe needs pandas "
                                         "(pip install 'dask[dataframe]')")
    pytest.importorskip("dask.dataframe", reason="the recipe needs dask.dataframe "
                                                 "(pip install 'dask[dataframe]')")
    pytest.importorskip("pyarrow", reason="dd.read_parquet needs pyarrow")


def _events(tmp: Path, rows: list[int | None]) -> None:
    """``events/part-{0,1}.parquet``: the column ``user_id`` (nullable 64-bit ints) and
    another column the recipe must not read."""
    import pandas as pd

    (tmp / "events").mkdir()
    half = len(rows) // 2
    for k, part in enumerate((rows[:half], rows[half:])):
        pd.DataFrame({"user_id": pd.array(part, dtype="Int64"),
                      "other": [f"x{i}" for i in range(len(part))]}
                     ).to_parquet(tmp / "events" / f"part-{k}.parquet")


def _run_recipe(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp)
    exec(compile(recipe(), f"{GUIDE.name} (Dask dataframe recipe)", "exec"), {})  # noqa: S102
    out = tmp / "user_counts"
    assert sorted(p.name for p in out.iterdir())[:1] == ["part-0.csv"]
    return out


def _release(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    return histogram_report(capsys, *argv, *COMMON)


def test_recipe_counts_are_the_rows_counts(dask_dataframe: None, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    r = random.Random(15)
    # two heavy elements (one a large 64-bit id) and a spread of light ones
    rows: list[int | None] = [3] * 300 + [2**62 + 7] * 120 + \
        [r.randint(1, 60) for _ in range(580)]
    r.shuffle(rows)
    _events(tmp_path, rows)
    counts_dir = _run_recipe(tmp_path, monkeypatch)
    dataset, _ = read_counts_csv(str(counts_dir), Universe(2**64), rows=len(rows))
    direct = Counter(rows)
    assert dataset.counts() == dict(sorted(direct.items()))
    assert dataset.n == len(rows) == sum(dataset.counts().values())
    # the release from the recipe's counts is the release from the rows themselves
    (tmp_path / "rows.txt").write_text("".join(f"{x}\n" for x in rows))
    from_counts = _release(capsys, str(counts_dir), "--counts", "--rows", str(len(rows)))
    from_rows = _release(capsys, str(tmp_path / "rows.txt"))
    assert from_counts == from_rows and from_counts["n"] == str(len(rows))


def test_a_wrong_recipe_is_caught(dask_dataframe: None, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a recipe that de-duplicates before counting (every count 1)
    gives counts other than the rows' counts."""
    wrong = recipe().replace('["user_id"].value_counts()',
                             '["user_id"].drop_duplicates().value_counts()')
    assert wrong != recipe()
    monkeypatch.setattr(sys.modules[__name__], "recipe", lambda: wrong)
    rows: list[int | None] = [1, 2, 2, 3, 3, 3]
    _events(tmp_path, rows)
    dataset, _ = read_counts_csv(str(_run_recipe(tmp_path, monkeypatch)), Universe(2**64))
    assert dataset.counts() == {1: 1, 2: 1, 3: 1} != dict(Counter(rows))


def test_duplicates_and_non_positive_counts_are_refused(dask_dataframe: None, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    rows: list[int | None] = [1, 2, 2, 3, 3, 3, 4, 4, 4, 4]
    _events(tmp_path, rows)
    counts_dir = _run_recipe(tmp_path, monkeypatch)
    argv = ["histogram", str(counts_dir), "--counts", "--rows", str(len(rows)), *COMMON]
    assert run(capsys, *argv)[0] == 0
    parts = sorted(counts_dir.glob("part-*.csv"))
    original = {p: p.read_text() for p in parts}

    # an element counted in two part files (e.g. a second GROUP BY appended): never summed
    parts[-1].write_text(original[parts[-1]] + "2,1\n")
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    one_line_error(err, "element '2' again", "never summed")
    parts[-1].write_text(original[parts[-1]])

    for bad in ("0", "-1", "2.0"):
        parts[0].write_text(original[parts[0]] + f"99,{bad}\n")
        rc, out, err = run(capsys, *argv)
        assert rc == 2 and out == "", bad
        one_line_error(err, "count", bad)
    parts[0].write_text(original[parts[0]])
    assert run(capsys, *argv)[0] == 0


def test_null_dropped_by_value_counts_shows_with_rows(dask_dataframe: None, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Dask's ``value_counts`` drops nulls; ``--rows`` (the table's row count) catches it."""
    rows: list[int | None] = [1, 2, None, 2]
    _events(tmp_path, rows)
    counts_dir = _run_recipe(tmp_path, monkeypatch)
    rc, out, err = run(capsys, "histogram", str(counts_dir), "--counts", "--rows", "4", *COMMON)
    assert rc == 2 and out == ""
    one_line_error(err, "sum to 3 rows", "--rows is 4")
