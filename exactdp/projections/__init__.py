"""Exact private random projections and sign random projections (Li & Li, paper 001).

Integer data, integer projections (Rademacher, very
sparse, OPORP), randomized response with a rational base ``rho = a/b`` (keep probabilities
``a^L/(a^L + b^L)``), exact discrete noise; every mechanism is a frozen dataclass whose
``sample(u, source)`` makes a number of ``uniform(d)`` draws fixed by its parameters.
"""

from exactdp.projections.estimators import collision_fraction, debias_rr_collision, inner_product
from exactdp.projections.idp import IDPSignRPRR, dyadic_root_base, noise_indicators
from exactdp.projections.idp_gauss import IDPSignOPORPG, IDPSignRPG, active_l2_sensitivity_sq
from exactdp.projections.idp_oporp import IDPSignOPORPRR
from exactdp.projections.matrices import (
    IntMatrix,
    OPORPPlan,
    column_max_abs,
    fisher_yates,
    int_matrix,
    l1_sensitivity,
    l2_sensitivity_sq,
    pad_to_multiple,
    sample_rademacher,
    sample_uniform_entries,
    sample_very_sparse,
)
from exactdp.projections.nplus import fragile_probability, n_plus, n_plus_bound
from exactdp.projections.project import int_vector, oporp, project, sign_with_tie
from exactdp.projections.rp import DPOPORP, DPRP, RawData, add_noise
from exactdp.projections.rr import Base, SmoothFlipper, base_from_eps, largest_l_max, rr_keep
from exactdp.projections.signs import (
    DPSignOPORP,
    DPSignOPORPRepeated,
    DPSignRPRR,
    DPSignRPSmooth,
    check_beta,
)

__all__ = [
    "DPOPORP",
    "DPRP",
    "Base",
    "DPSignOPORP",
    "DPSignOPORPRepeated",
    "DPSignRPRR",
    "DPSignRPSmooth",
    "IDPSignOPORPG",
    "IDPSignOPORPRR",
    "IDPSignRPG",
    "IDPSignRPRR",
    "IntMatrix",
    "OPORPPlan",
    "RawData",
    "SmoothFlipper",
    "active_l2_sensitivity_sq",
    "add_noise",
    "base_from_eps",
    "check_beta",
    "collision_fraction",
    "column_max_abs",
    "debias_rr_collision",
    "dyadic_root_base",
    "fisher_yates",
    "fragile_probability",
    "inner_product",
    "int_matrix",
    "int_vector",
    "l1_sensitivity",
    "l2_sensitivity_sq",
    "largest_l_max",
    "n_plus",
    "n_plus_bound",
    "noise_indicators",
    "oporp",
    "pad_to_multiple",
    "project",
    "rr_keep",
    "sample_rademacher",
    "sample_uniform_entries",
    "sample_very_sparse",
    "sign_with_tie",
]
