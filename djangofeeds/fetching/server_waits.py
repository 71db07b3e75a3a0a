"""How long a server asks us to wait: Retry-After and Cache-Control's max-age, in seconds."""

import email.utils
import re
from datetime import UTC, datetime

# The longest wait a server's Retry-After or max-age can ask for: a larger
# one would overflow the next check's datetime (and is no schedule anyway).
MAX_WAIT_SECONDS = 7 * 24 * 3600


def retry_after(value):
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    # Not str.isdigit(): it accepts "²", which int() refuses. More than ten
    # digits is no delay a server means.
    if re.fullmatch(r"[0-9]{1,10}", value):
        return min(int(value), MAX_WAIT_SECONDS)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return min(max(0, int((moment - datetime.now(UTC)).total_seconds())), MAX_WAIT_SECONDS)


def max_age(response):
    """Seconds from Cache-Control's max-age, at most MAX_WAIT_SECONDS; None if it has none."""
    cache_control = response.headers.get("cache-control", "")
    match = re.search(r"max-age\s*=\s*\"?([^\s,;\"]*)", cache_control, re.IGNORECASE)
    if not match or not re.fullmatch(r"[0-9]+", match[1]):
        return None
    # RFC 9111 1.2.2: a delta too large to represent counts as the largest one
    # we take (int() would refuse more than 4300 digits).
    digits = match[1].lstrip("0") or "0"
    return MAX_WAIT_SECONDS if len(digits) > 10 else min(int(digits), MAX_WAIT_SECONDS)
