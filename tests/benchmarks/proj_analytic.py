"""Analytic curves of paper 001: moved to :mod:`exactdp.plot.paper001` (shared with
``exactdp figures --paper 001``); this name stays for ``tests/test_proj_experiments.py``."""

from exactdp.plot.paper001 import (  # noqa: F401
    DELTA,
    SPARSITY,
    gaussian_bound,
    sensitivity_rows,
    sparse_support_bound,
    tables,
    variance_ratio,
)
