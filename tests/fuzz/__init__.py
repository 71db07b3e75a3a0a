"""Fuzz tests: generated input on every surface, bounded in time (issue 25)."""
