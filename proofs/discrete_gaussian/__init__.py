"""Executable proofs of exactdp's strict-time discrete Gaussian (:mod:`exactdp.discrete_gaussian`,
after Canonne, Kamath & Steinke, *The Discrete Gaussian for Differential Privacy*): the law it
samples, its strict time, and its certified privacy figures."""
