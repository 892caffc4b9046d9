"""Executable proofs of Aumüller, Lebeda & Pagh, *Differentially Private Sparse Vectors with
Low Error, Optimal Space, and Fast Access* (the ALP sketch, its eps-scaling and thresholded
variants)."""
