"""Every part a proof module of papers 002, 003 and 004 lists as not exercisable appears on the
generated claims page with its reason, and each reason is one sentence."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from exactdp.proofs import discover

FOLDERS = (".convolution.", ".alp.", ".balcer_vadhan.")


def _page() -> str:
    path = Path(__file__).resolve().parents[1] / "exactdp" / "docs" / "_ext" / "exactdp_docs.py"
    spec = importlib.util.spec_from_file_location("_claims_docs_ne", path)
    assert spec is not None and spec.loader is not None
    docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(docs)
    return str(docs.ClaimsSummaryDirective.markdown(None))


def test_every_not_exercisable_part_is_on_the_claims_page() -> None:
    listed = [(m, part, why) for m in discover() if any(f in m.__name__ for f in FOLDERS)
              for part, why in (getattr(m, "NOT_EXERCISABLE", None) or {}).items()]
    assert any(".convolution." in m.__name__ for m, _, _ in listed)
    assert any(".alp." in m.__name__ for m, _, _ in listed)
    page = _page()
    for module, part, why in listed:
        assert f"- {part} ({module.CLAIM}): {why}" in page
        assert why.strip() and why.count(". ") == 0, (module.__name__, part)
