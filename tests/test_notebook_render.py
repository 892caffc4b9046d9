"""The notebook renders as intended, not only runs: its Markdown outputs are HTML (no code
box), its sliders show their values, its FastSample sentence compares FastSample with its
own law, and the static offline export (``exactdp.tutorials.notebook_export``) holds the
summary, the table and the figure with no network reference -- checked in the HTML and, when
Chromium is installed, in a headless screenshot that is not blank."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from exactdp.tutorials import notebook_export
from exactdp.tutorials.notebook_export import NOTEBOOK, export_static

pytest.importorskip("marimo")
pytest.importorskip("matplotlib")


def _outputs(path: Path) -> list[str]:
    spec = importlib.util.spec_from_file_location("nb_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outs: Any
    outs, _ = module.app.run()
    return [o.text for o in outs if o is not None and isinstance(getattr(o, "text", None), str)]


@pytest.fixture(scope="module")
def outputs() -> list[str]:
    return _outputs(NOTEBOOK)


def test_markdown_outputs_render_as_html_not_code(outputs: list[str]) -> None:
    summary = next(t for t in outputs if "worst privacy-loss ratio" in t)
    assert "<pre" not in summary and "<strong>5/4</strong>" in summary
    assert "<table>" in summary and "<td>64/225</td>" in summary


def test_the_sliders_show_their_values(outputs: list[str]) -> None:
    sliders = [t for t in outputs if "<marimo-slider" in t]
    assert sliders and all("data-show-value='true'" in t for t in sliders)
    assert all(t.count("<marimo-slider") == t.count("data-show-value='true'") for t in sliders)


def test_the_fastsample_sentence_names_fastsample_own_law(tmp_path: Path) -> None:
    text = NOTEBOOK.read_text(encoding="utf-8")
    fast = text.replace('value="GeoSample",', 'value="FastSample",')
    assert fast != text
    (tmp_path / "nb.py").write_text(fast, encoding="utf-8")
    summary = next(t for t in _outputs(tmp_path / "nb.py") if "worst privacy-loss" in t)
    assert "Lemma 4.12 (ii)" in summary and "FastSample samples exactly" in summary
    assert "<strong>0</strong>" in summary


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_static(tmp_path_factory.mktemp("nb") / "notebook.html")


def test_the_static_export_needs_no_network(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text
    assert "<marimo-" not in text
    assert "data:image/png;base64," in text
    assert "<td>64/225</td>" in text and "<strong>5/4</strong>" in text
    assert "<td>true count c =</td><td><code>3</code></td>" in text
    with pytest.raises(notebook_export.ParameterError, match="exists"):
        export_static(page)


def test_the_static_export_is_not_blank_in_a_browser(page: Path, tmp_path: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("headless Chromium is not installed")
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    f"--screenshot={shot}", "--window-size=1000,1400", page.as_uri()],
                   check=False, capture_output=True, timeout=120)
    assert shot.exists()
    import matplotlib.image

    pixels = matplotlib.image.imread(str(shot))
    dark = (pixels[:, :, :3].sum(axis=2) < 1.5).mean()   # text, bars, table lines
    assert dark > 0.01, f"the rendered page is nearly blank ({dark:.4f} dark pixels)"
