"""Find the feed behind a URL a person gives: one fetch, then the page's feed links.

Used wherever a feed URL is accepted (``addfeed``, ``opml_import``, the admin's
add form, ``subscribe``). The URL is fetched once, through
``djangofeeds.fetching.http`` (its timeouts, size cap and address checks on every
redirect hop). A feed is taken as given; an HTML page gives the feeds its
``<link rel="alternate">`` elements name, which are not fetched again: the
import fetches them soon enough, and some hosts answer a second GET in a row
with 429 (miniflux #2128).
"""

import time
from dataclasses import dataclass, field

from django.utils.translation import gettext

from djangofeeds.fetching.feed_urls import InvalidFeedURL, feed_url_problem
from djangofeeds.fetching.http import (
    FeedGone,
    Fetched,
    FetchError,
    TransientFetchError,
    fetch,
    shorten,
)
from djangofeeds.models import Feed
from djangofeeds.parsing.entries import NotAFeed, ParsedFeed
from djangofeeds.parsing.links import FeedLink, feed_links, is_html_page
from djangofeeds.parsing.readers import parse


class DiscoveryError(InvalidFeedURL):
    """The URL leads to no feed; the message names the URL or the page it led to."""


@dataclass(frozen=True)
class Discovery:
    """What a URL turned out to be: a feed, or a page linking to ``feeds``."""

    url: str  # as given
    feeds: list[FeedLink] = field(default_factory=list)  # what to subscribe to, best first
    page: str = ""  # the HTML page the feeds were found on (after redirects); "" for a feed
    # Why the URL could not be checked now (a timeout, a 5xx, a 429): it is
    # taken as given, and the importer retries it on its schedule.
    unchecked_error: FetchError | None = field(default=None, compare=False, repr=False)
    # When the URL is a feed: the fetch that showed it, its reading and its
    # milliseconds, for an import that follows at once (``importer.EarlierFetch``).
    fetched: Fetched | None = field(default=None, compare=False, repr=False)
    parsed: ParsedFeed | None = field(default=None, compare=False, repr=False)
    fetch_ms: int = field(default=0, compare=False, repr=False)

    @classmethod
    def as_given(cls, url, unchecked_error=None):
        """``url`` taken as a feed, unfetched; ``unchecked_error`` says why when a fetch failed."""
        return cls(url, [FeedLink(url)], unchecked_error=unchecked_error)

    @property
    def unchecked(self):
        """Why the URL was taken unchecked, in words; "" when it was checked."""
        return str(self.unchecked_error) if self.unchecked_error else ""

    def unchecked_note(self):
        """The line a command prints under a URL it took unchecked ("" when checked)."""
        if not self.unchecked:
            return ""
        why = {"why": self.unchecked}
        return "  " + gettext("not checked (%(why)s); the importer will retry it") % why


def discover(url):
    """Fetch ``url`` once and tell what it is; raise ``InvalidFeedURL`` if it leads to no feed.

    A URL that can never be fetched is refused before any request (plain
    ``InvalidFeedURL``); what the fetch finds is a ``DiscoveryError``.
    """
    url = url.strip()
    problem = feed_url_problem(url)
    if problem:
        raise InvalidFeedURL(problem)
    started = time.perf_counter()
    try:
        fetched = fetch(url)
    except TransientFetchError as exc:
        return Discovery.as_given(url, exc)
    except FeedGone as exc:
        raise DiscoveryError(f"{shorten(url)} is gone (the server answered 410)") from exc
    except FetchError as exc:
        raise DiscoveryError(f"{shorten(url)} could not be fetched: {exc}") from exc
    content_type = fetched.headers.get("content-type", "")
    if is_html_page(fetched.body, content_type):
        return Discovery(url, page_feeds(fetched.url, fetched.body, content_type), fetched.url)
    fetch_ms = round((time.perf_counter() - started) * 1000)
    try:
        parsed = parse(fetched.body, url=fetched.url, content_type=content_type)
    except NotAFeed as exc:
        raise DiscoveryError(f"{shorten(url)} is not a feed: {exc}") from exc
    return Discovery(url, [FeedLink(url)], fetched=fetched, parsed=parsed, fetch_ms=fetch_ms)


def page_feeds(page, body, content_type):
    """The feeds of an HTML page that may be subscribed to; a clear error if there are none."""
    found = feed_links(body, page, content_type)
    if not found:
        raise DiscoveryError(f"{shorten(page)} is an HTML page that links to no feed")
    problems = {link.url: feed_url_problem(link.url) for link in found}
    usable = [link for link in found if not problems[link.url]]
    if not usable:
        first = found[0]
        raise DiscoveryError(
            f"{shorten(page)} links only to feeds that cannot be subscribed to "
            f"({shorten(first.url)}: {problems[first.url]})"
        )
    return usable


def find(url):
    """``discover(url)``, except that a URL already subscribed is taken as a feed, unfetched.
    Raises ``InvalidFeedURL`` as ``discover`` does."""
    url = url.strip()
    problem = feed_url_problem(url)
    if problem:
        raise InvalidFeedURL(problem)
    if Feed.objects.filter(url=url).exists():
        return Discovery.as_given(url)
    return discover(url)


def subscribe(url, *, title="", link=""):
    """Subscribe to the feed behind ``url``; return ``(feed, created)``.

    A URL not yet subscribed is fetched once (``find``): a feed is stored as
    given, an HTML page's first feed instead of the page. Raises
    ``InvalidFeedURL`` for a URL that could never be fetched or leads to no feed.
    """
    return Feed.objects.subscribe(find(url).feeds[0].url, title=title, link=link)
