"""``exactdp audit ... --html``: a self-contained page (parses, every element closed, unique
ids, nothing fetched) whose numbers are the audit's exact ones, checked independently."""

from __future__ import annotations

import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from _cli import one_line_error, run
from _html import check_page

from exactdp.audit.html import html_report
from exactdp.certified import compare_exp
from exactdp.params import ParameterTypeError

GEO = "exactdp.counting:GeoSample(8, '1/2')"
LEAKY = '''
def leaky(c, u):
    """Releases the count itself: every output reveals its input."""
    return c

leaky.d = 2
'''


def _audit(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[int, str]:
    page = tmp_path / "report.html"
    rc, _, err = run(capsys, "audit", *args, "--html", str(page), "--quiet")
    assert page.exists(), err
    return rc, page.read_text(encoding="utf-8")


def test_pass_page(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, page = _audit(capsys, tmp_path, GEO, "--kind", "whitebox", "--claimed-epsilon", "1/4",
                      "--inputs", "0..8")
    assert rc == 0
    text = check_page(page)
    assert "PASS" in text and "GeoSample(n=8, epsilon=1/2)" in text
    assert page.count("<svg") == 2  # the two pmfs, the privacy loss
    # GeoSample's worst ratio is 1 + 2^-k = 5/4 exactly (Theorem 4.7 i, k = 2) and the page's
    # effective epsilon is an enclosure of ln(5/4) printed with outward rounding.
    assert "5/4" in text
    lo, hi = re.search(r"in \[([0-9.]+), ([0-9.]+)\] < claimed 0\.25000000 \(a certified "
                       r"enclosure of ln\(5/4\)", text).groups()
    assert compare_exp(Fraction(lo), Fraction(5, 4)) < 0 < compare_exp(Fraction(hi),
                                                                      Fraction(5, 4))
    assert "identical across inputs" in text  # the trace comparison
    # every input's exact law is on the page: Pr[M(0) = 0] = alpha^0 / (1 + alpha) = 5/9
    assert "5/9" in text


def test_violation_page_shows_infinite_loss(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mech.py").write_text(LEAKY)
    rc, page = _audit(capsys, tmp_path, "./mech.py:leaky", "--kind", "whitebox",
                      "--claimed-epsilon", "1", "--inputs", "0..3")
    assert rc == 1
    text = check_page(page)
    assert "VIOLATION (severity: infinite)" in text and "effective epsilon" in text
    assert "+∞" in page or "+&#8734;" in page or "+inf" in text


def test_blackbox_page(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ident.py").write_text("def ident(c):\n    return c\n")
    rc, page = _audit(capsys, tmp_path, "./ident.py:ident", "--kind", "blackbox",
                      "--claimed-epsilon", "1", "--inputs", "0..2", "--draws", "200")
    assert rc == 1
    text = check_page(page)
    assert "VIOLATION" in text and "Privacy test" in text and "at most 1/100" in text


def test_html_checked_before_the_audit(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "r.html"
    page.write_text("keep")
    args = ["audit", GEO, "--kind", "whitebox", "--claimed-epsilon", "1/4", "--inputs", "0..8",
            "--quiet"]
    rc, out, err = run(capsys, *args, "--html", str(page))
    assert rc == 2 and page.read_text() == "keep" and out == ""
    one_line_error(err, "--html", "exists", "--force")
    rc, _, err = run(capsys, *args, "--html", str(page), "--force")
    assert rc == 0 and page.read_text().startswith("<!DOCTYPE html>")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    rc, out, err = run(capsys, *args, "--html", str(tmp_path / "new.html"))
    assert rc == 2 and out == "" and not (tmp_path / "new.html").exists()
    one_line_error(err, "pip install 'exactdp[plot]'")


def test_report_types() -> None:
    with pytest.raises(ParameterTypeError):
        html_report("not a report")  # type: ignore[arg-type]


def test_checker_catches_what_it_checks() -> None:
    """The page check can fail: each kind of defect is reported."""
    base = ("<!DOCTYPE html><html><head><title>t</title><style></style></head><body>{}"
            "</body></html>")
    check_page(base.format('<p>ok</p><svg xmlns="http://www.w3.org/2000/svg"><use '
                           'xlink:href="#a"/></svg>'))
    for bad in ('<script src="x.js"></script>', '<a href="https://example.com">x</a>',
                "<p><b>unclosed</p>", '<p id="a"></p><p id="a"></p>',
                '<div style="background: url(http://x/y.png)"></div>', '<img src="data:,">'):
        with pytest.raises(AssertionError):
            check_page(base.format(bad))
