"""The feed documents in tests/djangofeeds/fixtures, read as the server would send them."""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "djangofeeds" / "fixtures"


def fixture(name):
    """The bytes of the fixture file ``name``."""
    return (FIXTURES / name).read_bytes()
