"""Verification of ports: cases, harness, comparison, timing (see the verify issue)."""
