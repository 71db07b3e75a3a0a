"""Benchmarks of the targets in SPEC §7: one ``bench_*.py`` per target, run by ``bench/run.py``."""
