"""What a feed's URL must be to be stored: the one check of the admin, the commands and OPML."""

from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from djangofeeds.fetching.addresses import url_problem

# Feed.url's column size.
URL_MAX_LENGTH = 2000


class InvalidFeedURL(ValueError):
    """A URL that can never be a feed's (see ``feed_url_problem``)."""


URL_SYNTAX = URLValidator(schemes=["http", "https"])


def feed_url_problem(url):
    """Why ``url`` cannot be a feed's URL, as one readable phrase, or None.

    The one check behind the admin's form (``validate_fetchable``), ``addfeed``
    and ``opml_import`` (``FeedManager.subscribe``): the length the column
    holds, the importer's own rules (``url_problem``: http(s) only, no
    user:password, no private address literal, a host name IDNA takes, a port
    from 1 to 65535), the port as ``urlsplit`` reads it, and Django's
    URL syntax (no spaces, a real host name).
    """
    if not url:
        return "no URL"
    if len(url) > URL_MAX_LENGTH:
        return f"longer than the {URL_MAX_LENGTH} characters a feed URL may have ({len(url)})"
    problem = url_problem(url)
    if problem:
        return problem
    try:
        _ = urlsplit(url).port  # raises ValueError outside 0-65535 (url_problem refuses 0)
    except ValueError:
        return "the port is not a number from 1 to 65535"
    try:
        URL_SYNTAX(url)
    except ValidationError:
        return "not a valid URL (a space, or a host name that cannot exist?)"
    return None


def validate_fetchable(url):
    """Refuse a URL the importer could never fetch; the admin's feed form shows why."""
    problem = feed_url_problem(url)
    if problem:
        raise ValidationError(problem)
