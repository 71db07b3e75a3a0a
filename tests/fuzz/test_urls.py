"""Fuzzed URL checks: ``feed_url_problem`` and the fetch path's redirect targets.

Unicode, IDNA, percent-encoding, odd ports and control characters: every check
answers with a readable reason or lets the URL through, and a URL it lets
through is one httpx, IDNA and the database all take.
"""

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from djangofeeds.fetching.addresses import UnreadableURL, read_url, url_problem
from djangofeeds.models import Feed, Outcome, feed_url_problem
from localservers.feed_server import numbered_items, rss
from tests.fuzz.strategies import LOOPBACK, any_url, host_names, scaled, urls
from tests.hostile.helpers import readable
from tests.support.importing import import_url


@given(url=any_url())
@example(url="http://xn--/")  # issue 25: IDNAError from .host, uncaught
@example(url="http://xn--a.com/")
@example(url="http://example.com:0/")  # issue 25: port 0 was stored
@example(url="http://example.com:65536/")
@example(url="http://²/")
@example(url="http://ex%00ample.com/")
@scaled(10)
def test_feed_url_problem_never_raises_and_what_it_passes_can_be_fetched(url):
    """A readable reason, or None for a URL with an http(s) scheme, a host IDNA takes, a port
    from 1 to 65535, no credentials: never an exception."""
    problem = feed_url_problem(url)

    assert problem is None or readable(problem), problem
    fetch_problem = url_problem(url)
    assert fetch_problem is None or readable(fetch_problem), fetch_problem
    if problem is None:
        assert fetch_problem is None
        parsed, host = read_url(url)
        assert host and parsed.scheme in ("http", "https") and not parsed.userinfo
        assert parsed.port is None or 1 <= parsed.port <= 65535
        assert len(url) <= Feed._meta.get_field("url").max_length


@pytest.fixture
def redirect_from(feed_server, settings):
    """A URL on the local feed server that redirects to the given Location."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 2
    feed_server.serve("/feed.xml", rss(numbered_items(2)))

    def serve(location, status=301):
        # As a server sends it: UTF-8 bytes.
        feed_server.redirect("/moved.xml", location.encode().decode("latin-1"), status)
        return feed_server.url("/moved.xml")

    serve.port = feed_server.port
    return serve


def header_value(text):
    """``text`` as a header carries it: no control characters (h11 refuses the answer, a
    network error before any URL check), no spaces or tabs around it (they are not part of
    the value)."""
    return "".join(c for c in text if c == "\t" or not (c < " " or c == "\x7f")).strip(" \t")


# Stands for the feed server's port in a generated Location (known only once it runs).
SERVER_PORT = "SERVER_PORT"


def redirect_targets():
    """Locations pointing nowhere that answers (``.invalid`` names, port 1 on loopback) or back
    to the feed server: a fuzzed target never reaches a real service on this machine."""
    loopback_ports = st.sampled_from([SERVER_PORT, "1", "0", "65536", "99999", "-1", "x", ""])
    return st.one_of(
        urls(host_names(".invalid")),
        urls(st.sampled_from(LOOPBACK), loopback_ports, always_a_port=True),
        st.sampled_from(["/feed.xml", "feed.xml", "//xn--/", "///feed.xml", "http:///feed.xml"]),
        st.builds(lambda path: "/" + path, st.text(max_size=10)),
    )


@pytest.mark.django_db
@given(location=redirect_targets(), status=st.sampled_from([301, 302, 307, 308]))
# A tab after the URL: not part of the header's value (the check read it as a bad URL).
@example(location=f"http://127.0.0.1:{SERVER_PORT}/feed.xml\t", status=301)
# The check reads the Location as sent (%5B), the test's own join as %5b.
@example(location="http://xn--.[.invalid/", status=301)
@scaled(1.5)
def test_redirect_targets_end_in_a_post_or_a_readable_error(redirect_from, location, status):
    """Whatever a feed redirects to, the import ends imported, not modified or failed with a
    readable reason (the one the URL check gives, for a target it refuses): never a crash."""
    location = header_value(location.replace(SERVER_PORT, str(redirect_from.port)))
    url = redirect_from(location, status)

    result = import_url(url)

    outcome, error = result.run.outcome, result.run.error
    if outcome == Outcome.FAILED:
        assert readable(error), error
    else:
        assert outcome in (Outcome.IMPORTED, Outcome.NOT_MODIFIED), error
    try:
        target = httpx.URL(url).join(location)
        problem = url_problem(target)
    except (httpx.InvalidURL, ValueError):
        problem = "not a valid URL"
    if problem:
        # Lower case: httpx spells the percent-escapes of a joined URL in lower case.
        assert outcome == Outcome.FAILED and problem.lower() in error.lower(), (problem, error)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("location", "reason"),
    [
        # Issue 25: IDNAError escaped the import, recorded as ImportCrashed.
        ("http://xn--/feed", "redirected to http://xn--/feed: not a valid URL: the host name"),
        ("http://xn--a.invalid/", "not valid IDNA"),
        ("http://[::1/feed", "redirected to http://[::1/feed: not a valid URL"),
        ("http://127.0.0.1:0/feed", "port 0 cannot be fetched"),
        ("http://127.0.0.1:99999/feed", "the port is not a number from 1 to 65535"),
    ],
)
def test_redirect_targets_found_by_fuzzing_are_refused_in_words(redirect_from, location, reason):
    """Targets that once crashed the import or were fetched anyway: each a lasting, readable
    failure."""
    result = import_url(redirect_from(location))

    assert result.run.outcome == Outcome.FAILED and not result.transient
    assert reason in result.run.error and readable(result.run.error), result.run.error


def test_read_url_says_why_in_words():
    """What httpx or IDNA refuse comes back as UnreadableURL with a readable message."""
    for url in ("http://xn--/", "http://[::1/", "http://a\x00b/", "http://\u0660.com/"):
        with pytest.raises(UnreadableURL) as raised:
            read_url(url)
        assert str(raised.value).startswith("not a valid URL: ") and readable(str(raised.value))
