"""Toy audit targets for tests/test_audit_robustness.py: each misbehaves in one way."""
