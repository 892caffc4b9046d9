"""Shared pytest configuration: Hypothesis profiles.

* ``default`` -- modest ``max_examples`` and no deadline (exact big-integer arithmetic has
  legitimately variable run times); keeps the default test run within its time budget.
* ``thorough`` -- many more examples, for a long local run:
  ``HYPOTHESIS_PROFILE=thorough python -m pytest -q``.

The profile is chosen with the ``HYPOTHESIS_PROFILE`` environment variable.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

from hypothesis import HealthCheck, settings

# ``from tests._cli import ...`` must find THIS folder.  diffprivlib (the optional [audit]
# extra) installs a top-level package named ``tests`` into site-packages, which would
# otherwise shadow it: bind the name to this folder before any test module is imported.
_TESTS = Path(__file__).resolve().parent
_bound = sys.modules.get("tests")
if _bound is None or [Path(p).resolve() for p in getattr(_bound, "__path__", [])] != [_TESTS]:
    _package = types.ModuleType("tests")
    _package.__path__ = [str(_TESTS)]
    sys.modules["tests"] = _package

settings.register_profile(
    "default",
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
