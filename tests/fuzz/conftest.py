"""The fuzz runs' hypothesis profile and seed: bounded in time, reproducible from a failure.

``fuzz`` (the default here) is what CI runs: a fixed number of examples per
test, the whole folder in about a minute. ``fuzz-long`` digs deeper, by hand:
``pytest tests/fuzz --hypothesis-profile=fuzz-long --timeout=0``. Each run draws a seed
(or takes ``FUZZ_SEED``); a failing test prints it, and ``print_blob`` prints
the ``@reproduce_failure`` line of the exact example. Every failure found
becomes an ``@example`` on its test.
"""

import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, seed, settings

COMMON = {
    "deadline": None,  # a loaded machine is slow now and then: no flaky deadline errors
    "derandomize": False,
    "print_blob": True,
    "database": None,  # nothing written into the checkout; the seed and blob reproduce
    # Fixtures (the database, the feed server) are set up once per test, not per example.
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}
settings.register_profile("fuzz", max_examples=40, **COMMON)
settings.register_profile("fuzz-long", max_examples=2000, **COMMON)

SEED = int(os.environ.get("FUZZ_SEED") or random.SystemRandom().randrange(2**32))
HERE = Path(__file__).parent


def pytest_configure(config):
    if not config.getoption("hypothesis_profile", None):
        settings.load_profile("fuzz")


def pytest_collection_modifyitems(items):
    """Every generated test in this folder runs with this session's seed."""
    for item in items:
        if HERE in Path(item.path).parents and hasattr(item.obj, "hypothesis"):
            seed(SEED)(item.obj)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed and HERE in Path(item.path).parents:
        report.sections.append(("fuzz seed", f"rerun with FUZZ_SEED={SEED} (same examples)"))
    return report
