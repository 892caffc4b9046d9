"""Executable proofs of claims about exactdp's own audit machinery."""
