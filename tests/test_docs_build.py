"""The documentation site builds cleanly: Sphinx with every warning an error (``-W``) and every
cross-reference required to resolve (``-n``), then every internal link of the HTML checked.

Skipped when Sphinx or MyST-Parser is not installed (``pip install '.[docs]'``; CI installs
it).  Also: every tutorial has its page, and the generated pages hold what they generate.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "exactdp" / "docs"
TUTORIALS = ROOT / "exactdp" / "tutorials"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("sphinx", reason="the docs build needs pip install 'exactdp[docs]'")
    pytest.importorskip("myst_parser", reason="the docs build needs pip install 'exactdp[docs]'")
    out = tmp_path_factory.mktemp("docs-html")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html",
         "-d", str(out / ".doctrees"), str(DOCS), str(out)],
        check=False, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, f"the docs build failed:\n{done.stderr}{done.stdout}"
    return out


def internal_links(html: Path) -> list[str]:
    return [h for h in re.findall(r'(?:href|src)="([^"]+)"', html.read_text(encoding="utf-8"))
            if not urlsplit(h).scheme and not h.startswith(("#", "mailto:"))]


def broken_links(site: Path) -> list[str]:
    """Every relative ``href``/``src`` of the site's HTML that names no file or no anchor."""
    pages = [p.resolve() for p in sorted(site.rglob("*.html"))]
    ids = {page: set(re.findall(r'id="([^"]+)"', page.read_text(encoding="utf-8")))
           for page in pages}
    broken = []
    for page in pages:
        for link in internal_links(page):
            parts = urlsplit(html.unescape(link))
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.exists():
                broken.append(f"{page.relative_to(site.resolve())} -> {link}")
            elif parts.fragment and target in ids and unquote(parts.fragment) not in ids[target]:
                broken.append(f"{page.relative_to(site.resolve())} -> {link} (no such anchor)")
    return broken


def test_every_internal_link_resolves(site: Path) -> None:
    assert len(list(site.rglob("*.html"))) > 20
    broken = broken_links(site)
    assert not broken, "\n".join(broken)


def test_the_link_check_sees_a_planted_broken_link(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text('<p id="top"><a href="b.html#x">b</a>'
                                     '<a href="#top">top</a><a href="c.html">c</a>'
                                     '<img src="_static/p.png?v=1"></p>')
    (tmp_path / "b.html").write_text('<p id="y">b</p>')
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "p.png").write_bytes(b"")
    assert broken_links(tmp_path) == ["a.html -> b.html#x (no such anchor)", "a.html -> c.html"]


def test_the_generated_pages_are_there(site: Path) -> None:
    cli = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    for command in ("exactdp-verify", "exactdp-audit", "exactdp-check-sign-oporp"):
        assert f'id="{command}"' in cli
    claims = (site / "reference" / "claims.html").read_text(encoding="utf-8")
    assert "Theorem 4.7" in claims and "Slips of the papers" in claims
    api = (site / "reference" / "api.html").read_text(encoding="utf-8")
    assert 'id="exactdp.GeoSample"' in api and 'id="exactdp.testing.assert_pure_dp"' in api


def test_every_tutorial_has_a_page() -> None:
    for tutorial in sorted(TUTORIALS.glob("[0-9][0-9]-*.md")):
        page = DOCS / "tutorials" / tutorial.name
        assert page.exists(), f"add {page.relative_to(ROOT)} including {tutorial.name}"
        assert f"../../tutorials/{tutorial.name}" in page.read_text(encoding="utf-8")


def saved_pictures(tutorial: Path) -> list[str]:
    """The picture files a tutorial's code saves (``OUTPUT_DIR / "name.png"``)."""
    return re.findall(r'OUTPUT_DIR / "([A-Za-z0-9_.-]+\.png)"', tutorial.read_text(encoding="utf-8"))


def test_every_tutorial_picture_is_stored_for_the_docs() -> None:
    stored = DOCS / "tutorials" / "pictures"
    wanted = [name for t in sorted(TUTORIALS.glob("[0-9][0-9]-*.md")) for name in saved_pictures(t)]
    assert wanted, "the tutorials draw pictures"
    missing = [name for name in wanted if not (stored / name).is_file()]
    assert not missing, (f"draw them with 'exactdp tutorial NAME --run --output DIR' and copy "
                         f"them into {stored.relative_to(ROOT)}: {missing}")
    for name in wanted:
        assert (stored / name).read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), name


def test_tutorial_pages_show_their_pictures(site: Path) -> None:
    for tutorial in sorted(TUTORIALS.glob("[0-9][0-9]-*.md")):
        page = (site / "tutorials" / tutorial.with_suffix(".html").name).read_text(encoding="utf-8")
        shown = re.findall(r'<img [^>]*src="([^"]+)"', page)
        for name in saved_pictures(tutorial):
            assert any(src.endswith("/" + name) for src in shown), (tutorial.name, name, shown)


def test_pictures_go_after_the_block_and_its_output() -> None:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from exactdp_docs import with_pictures
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    text = ("# T\n\n```python\nprint(1)\nsave(OUTPUT_DIR / \"a.png\")\n```\n\n```output\n1\n```\n"
            "\nAfter.\n\n```python\nx = 1\n```\n")
    out = with_pictures(text)
    assert out.count("![a.png](pictures/a.png)") == 1
    assert out.index("```output") < out.index("![a.png]") < out.index("After.")
