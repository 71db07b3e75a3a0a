"""djangofeeds.fetching.server_waits: the waits a server asks for, read as bounded seconds."""

import pytest

from djangofeeds.fetching.server_waits import MAX_WAIT_SECONDS, retry_after
from localservers.feed_server import http_date


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("", None), ("120", 120), (" 7 ", 7), ("soon", None), ("99999999999", None)],
)
def test_retry_after_reads_delta_seconds(value, seconds):
    """Retry-After in plain seconds is read; words and absurd lengths are ignored."""
    assert retry_after(value) == seconds


def test_retry_after_reads_an_http_date_and_caps_the_wait():
    """A date gives the seconds until it (never below 0), at most a week."""
    assert 100 <= retry_after(http_date(-120)) <= 120
    assert retry_after(http_date(3600)) == 0
    assert retry_after("9999999999") == MAX_WAIT_SECONDS
