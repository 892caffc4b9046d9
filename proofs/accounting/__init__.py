"""Executable proofs of exactdp's exact privacy accounting (exactdp.accounting): composed
privacy-loss distributions against the explored joint laws of the composed releases."""
