"""Shared pytest configuration: Hypothesis profiles.

* ``default`` -- modest ``max_examples`` and no deadline (exact big-integer arithmetic has
  legitimately variable run times); keeps the default test run within its time budget.
* ``thorough`` -- many more examples, for a long local run:
  ``HYPOTHESIS_PROFILE=thorough python -m pytest -q``.

The profile is chosen with the ``HYPOTHESIS_PROFILE`` environment variable.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

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
