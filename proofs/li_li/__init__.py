"""Executable proofs of Li & Li, *Differential Privacy with Random Projections and Sign Random
Projections* (DP-RP, DP-OPORP, DP-SignOPORP, iDP-SignRP) and of the paper's slips."""
