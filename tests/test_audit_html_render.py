"""The HTML audit reports as a reader sees them: a modified subclass is named after itself,
long fractions carry a decimal, the pmf picture switches to a log axis when probabilities
span orders of magnitude, the black-box page has a picture, and both pages render (not
blank) in headless Chromium when it is installed."""

from __future__ import annotations

import shutil
import subprocess
import warnings
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp import FastSample, GeoSample, SeededSource
from exactdp.audit import html as audit_html
from exactdp.audit import whitebox_audit
from exactdp.audit.blackbox import blackbox_audit
from exactdp.audit.html import html_report, needs_log_axis
from exactdp.audit.whitebox import sampler_name


class ShiftedGeoSample(GeoSample):
    """A modified GeoSample defined outside exactdp (it inherits GeoSample's repr)."""

    def __call__(self, c: int, u: int) -> int:
        return min(self.n, super().__call__(c, u) + (c == 0))


def test_a_subclass_is_named_after_itself_not_its_base() -> None:
    geo = GeoSample(4, Fraction(1, 2))
    assert sampler_name(geo) == repr(geo)
    shifted = ShiftedGeoSample(4, Fraction(1, 2))
    name = sampler_name(shifted)
    assert name.startswith(f"{__name__}.ShiftedGeoSample (a subclass of GeoSample)")
    report = whitebox_audit(shifted, claimed_epsilon=Fraction(1, 4))
    assert report.mechanism == name
    page = html_report(report)
    assert "<h1>exactdp white-box audit of " + audit_html._e(name) in page


def test_long_fractions_carry_a_decimal() -> None:
    assert audit_html._exact(Fraction(5, 4)) == "5/4"
    long = Fraction(2001517169164, 736317017687)
    shown = audit_html._exact(long)
    assert shown.startswith(str(long)) and "(= 2.71828" in shown
    huge = Fraction(3**200, 2**300)
    assert "digits, is in --json" in audit_html._exact(huge)


def test_the_pmf_picture_uses_a_log_axis_when_needed() -> None:
    assert not needs_log_axis({0: Fraction(1, 2), 1: Fraction(1, 2)}, {0: Fraction(1, 3)})
    assert needs_log_axis({0: Fraction(999, 1000), 1: Fraction(1, 10**6)}, {})
    report = whitebox_audit(FastSample(40, Fraction(1, 2), Fraction(1, 2**20)),
                            claimed_epsilon=Fraction(1, 5))
    page = html_report(report)
    assert "The pmfs are drawn on a log axis" in page
    assert "trace length (events per run)" in page


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("reports")
    geo = GeoSample(4, Fraction(1, 2))
    white = whitebox_audit(ShiftedGeoSample(4, Fraction(1, 2)), claimed_epsilon=Fraction(1, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source = SeededSource(3)
    black = blackbox_audit(lambda c: geo(c, source.uniform(geo.d)), inputs=range(5),
                           claimed_epsilon=Fraction(1, 100), draws=2000)
    paths = {}
    for name, report in (("white", white), ("black", black)):
        paths[name] = out / f"{name}.html"
        paths[name].write_text(html_report(report), encoding="utf-8")
    return paths


def test_the_black_box_page_has_a_picture(pages: dict[str, Path]) -> None:
    text = pages["black"].read_text(encoding="utf-8")
    assert "<h2>Privacy test</h2>" in text
    assert "<figure><svg" in text.replace("\n", "")


@pytest.mark.parametrize("name", ["white", "black"])
def test_the_pages_render_in_a_browser(pages: dict[str, Path], name: str,
                                       tmp_path: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("headless Chromium is not installed")
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    f"--screenshot={shot}", "--window-size=1000,1400", pages[name].as_uri()],
                   check=False, capture_output=True, timeout=120)
    import matplotlib.image

    pixels = matplotlib.image.imread(str(shot))
    dark = (pixels[:, :, :3].sum(axis=2) < 1.5).mean()
    assert dark > 0.01, f"the {name}-box page renders nearly blank ({dark:.4f})"
