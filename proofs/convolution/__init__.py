"""Executable proofs of Fawaz, Muthukrishnan & Nikolov, *Nearly Optimal Private Convolution*
(Fourier-domain noise, its exact accounting and its bounds)."""
