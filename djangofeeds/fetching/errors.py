"""Why a feed could not be fetched: the errors of ``djangofeeds.fetching.http`` and its helpers."""


class FetchError(Exception):
    """The feed could not be fetched. ``transient`` errors may succeed if tried again."""

    transient = False

    def __init__(self, message, *, status=None, retry_after=None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after  # seconds, from a Retry-After header


class TransientFetchError(FetchError):
    transient = True


class FeedGone(FetchError):
    """410 Gone: the publisher removed the feed for good."""


class RefusedAddress(FetchError):
    """The host resolves to an address that must not be fetched (loopback, private, ...)."""
