"""Find the feed behind a URL a person gives: one fetch, then the page's feed links.

Used wherever a feed URL is accepted (``addfeed``, ``opml_import``, the admin's
add form, ``subscribe``). The URL is fetched once, through
``djangofeeds.fetching.http`` (its timeouts, size cap and address checks on every
redirect hop). A feed is taken as given; an HTML page gives the feeds its
``<link rel="alternate">`` elements name, which are not fetched again: the
import fetches them soon enough, and some hosts answer a second GET in a row
with 429 (miniflux #2128).
"""

from dataclasses import dataclass, field

from djangofeeds.fetching.feed_urls import InvalidFeedURL, feed_url_problem
from djangofeeds.fetching.http import FeedGone, FetchError, TransientFetchError, fetch, shorten
from djangofeeds.models import Feed
from djangofeeds.parsing.entries import NotAFeed
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
    unchecked: str = ""

    @classmethod
    def as_given(cls, url, unchecked=""):
        return cls(url, [FeedLink(url)], unchecked=unchecked)


def discover(url):
    """Fetch ``url`` once and tell what it is; raise ``InvalidFeedURL`` if it leads to no feed.

    A URL that can never be fetched is refused before any request (plain
    ``InvalidFeedURL``); what the fetch finds is a ``DiscoveryError``.
    """
    url = url.strip()
    problem = feed_url_problem(url)
    if problem:
        raise InvalidFeedURL(problem)
    try:
        fetched = fetch(url)
    except TransientFetchError as exc:
        return Discovery.as_given(url, unchecked=str(exc))
    except FeedGone as exc:
        raise DiscoveryError(f"{shorten(url)} is gone (the server answered 410)") from exc
    except FetchError as exc:
        raise DiscoveryError(f"{shorten(url)} could not be fetched: {exc}") from exc
    content_type = fetched.headers.get("content-type", "")
    if is_html_page(fetched.body, content_type):
        return Discovery(url, page_feeds(fetched.url, fetched.body, content_type), fetched.url)
    try:
        parse(fetched.body, url=fetched.url, content_type=content_type)
    except NotAFeed as exc:
        raise DiscoveryError(f"{shorten(url)} is not a feed: {exc}") from exc
    return Discovery.as_given(url)


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
