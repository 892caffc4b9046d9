"""The notebook as a reader sees it: ``marimo run`` serving it, headless Chromium loading the
page (driven through the DevTools protocol until the kernel has rendered the cells), and the
rendered text holding the summary (as HTML, not Markdown source), the values the sliders are
set to, and the exact pmf table; the screenshot is not blank.  Skipped when marimo,
websockets or Chromium is absent."""

from __future__ import annotations

import base64
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from exactdp.tutorials.notebook_export import NOTEBOOK

pytest.importorskip("marimo")
pytest.importorskip("matplotlib")
sync_client = pytest.importorskip("websockets.sync.client")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SUMMARY = "worst privacy-loss ratio over neighbouring counts: 5/4"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str, seconds: float) -> bytes:
    end = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return bytes(r.read())
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.3)


def render_live(notebook: Path, out: Path, wait_for: str) -> tuple[str, bytes]:
    """``(page text, PNG screenshot)`` of ``notebook`` served by ``marimo run``, once the
    text holds ``wait_for`` (or after 90 s)."""
    mport, dport = _free_port(), _free_port()
    server = subprocess.Popen([sys.executable, "-m", "marimo", "run", str(notebook),
                               "--headless", "--no-token", "--port", str(mport),
                               "--host", "127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    browser = None
    try:
        _get(f"http://127.0.0.1:{mport}/", 60)
        browser = subprocess.Popen([str(CHROMIUM), "--headless=new", "--no-sandbox",
                                    "--disable-gpu", f"--remote-debugging-port={dport}",
                                    f"--user-data-dir={out / 'profile'}",
                                    "--window-size=1200,1600", f"http://127.0.0.1:{mport}/"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        targets = json.loads(_get(f"http://127.0.0.1:{dport}/json", 30))
        url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        with sync_client.connect(url, max_size=2**26) as ws:
            counter = [0]

            def call(method: str, **params: Any) -> dict[str, Any]:
                counter[0] += 1
                ws.send(json.dumps({"id": counter[0], "method": method, "params": params}))
                while True:
                    msg = json.loads(ws.recv(timeout=30))
                    if msg.get("id") == counter[0]:
                        return dict(msg.get("result", {}))

            def text() -> str:
                r = call("Runtime.evaluate",
                         expression="document.body ? document.body.innerText : ''")
                return str(r.get("result", {}).get("value", ""))

            end = time.monotonic() + 90
            while wait_for not in text() and time.monotonic() < end:
                time.sleep(1)
            time.sleep(2)  # the figures after the text
            shot = base64.b64decode(call("Page.captureScreenshot", format="png")["data"])
            return text(), shot
    finally:
        if browser is not None:
            browser.terminate()
            browser.wait(10)
        server.terminate()
        server.wait(10)


def check_rendered(page: str, shot: bytes) -> None:
    assert SUMMARY in page, page[:2000]
    # the slider values (m = 2, n = 12, c = 3) as the cells read them, rendered as HTML
    assert "GeoSample (Algorithm 4.8), n = 12, eps = 1/2 (k = 2), true count c = 3" in page
    assert "**" not in page and "```" not in page
    # the exact pmf table of GeoSample(12, 1/2) at c = 3: Pr[0] = 64/225, Pr[3] = 1/9
    assert "0\t64/225" in page and "3\t1/9" in page
    assert shot.startswith(b"\x89PNG\r\n\x1a\n") and len(shot) > 50_000


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_marimo_run_renders_summary_sliders_and_table(tmp_path: Path) -> None:
    page, shot = render_live(NOTEBOOK, tmp_path, SUMMARY)
    (tmp_path / "live.png").write_bytes(shot)
    check_rendered(page, shot)


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_a_summary_shown_as_markdown_source_fails(tmp_path: Path) -> None:
    text = NOTEBOOK.read_text(encoding="utf-8")
    right = 'mo.md("\\n".join(lines))'
    assert text.count(right) == 1
    planted = tmp_path / "planted.py"
    planted.write_text(text.replace(right, 'mo.plain_text("\\n".join(lines))'), encoding="utf-8")
    page, shot = render_live(planted, tmp_path, "worst privacy-loss ratio")
    assert "worst privacy-loss ratio" in page
    with pytest.raises(AssertionError):
        check_rendered(page, shot)
