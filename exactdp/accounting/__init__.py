"""Exact privacy accounting: privacy-loss distributions and their exact composition.

Every mechanism exactdp ships has an exact rational law, read off the implementation by the
checker; so the privacy loss of a release on two neighbouring inputs is an exact
distribution (:class:`PrivacyLoss`), and so is the loss of any number of independent
releases (:func:`compose`).  From it: the hockey-stick divergence ``delta`` at ``eps = ln R``
exactly for rational ``R``, and ``delta(eps)``/``epsilon(delta)`` as certified intervals.

* :mod:`exactdp.accounting.loss` -- :class:`PrivacyLoss` (``from_laws``, ``of``,
  ``delta_at_ratio``, ``delta``, ``epsilon``);
* :mod:`exactdp.accounting.compose` -- :func:`compose`, :func:`power`;
* :mod:`exactdp.accounting.divergences` -- Renyi divergences, KL, zCDP ``rho`` (certified);
* :mod:`exactdp.accounting.worst` -- the worst neighbouring pair (:func:`worst_pair`);
* :mod:`exactdp.accounting.lattice` -- ratios ``offset * base**i`` (composition by
  polynomial products);
* :mod:`exactdp.accounting.grid` -- certified ``delta``/``epsilon`` intervals for many-fold
  compositions whose ratios lie on no common lattice (:func:`~exactdp.accounting.grid.delta_interval`).
"""

from exactdp.accounting.compose import MAX_ATOMS, compose, power
from exactdp.accounting.divergences import kl, renyi, zcdp_rho
from exactdp.accounting.loss import LawError, PrivacyLoss
from exactdp.accounting.worst import WorstPair, worst_pair

__all__ = ["MAX_ATOMS", "LawError", "PrivacyLoss", "WorstPair", "compose", "kl", "power",
           "renyi", "worst_pair", "zcdp_rho"]
