"""fetching.http: one GET with its redirects, answered as a ``Fetched`` or a ``FetchError``."""

import gzip
import zlib

import pytest

from djangofeeds.fetching.http import (
    Decoder,
    FeedGone,
    Fetched,
    FetchError,
    TransientFetchError,
    fetch,
)
from localservers.feed_server import http_date, numbered_items, rss


def test_fetch_returns_the_body_of_a_200(feed_server):
    """A 200 brings back its body, status and headers, with no permanent URL."""
    body = rss(numbered_items(2))
    url = feed_server.serve("/feed.xml", body)

    fetched = fetch(url)

    assert isinstance(fetched, Fetched)
    assert (fetched.url, fetched.status, fetched.body) == (url, 200, body)
    assert fetched.headers["content-type"] == "application/rss+xml"
    assert fetched.permanent_url is None and not fetched.not_modified


def test_fetch_sends_validators_and_reads_a_304(feed_server):
    """With the feed's ETag, the server answers 304: no body, not modified."""
    url = feed_server.serve("/cond.xml", rss(numbered_items(1)), etag='"v1"')

    fetched = fetch(url, etag='"v1"', last_modified=http_date(60))

    assert fetched.not_modified and fetched.body == b""
    sent = feed_server.last_headers("/cond.xml")
    assert sent["If-None-Match"] == '"v1"' and sent["If-Modified-Since"] == http_date(60)
    assert sent["User-Agent"].startswith("djangofeeds/") and "gzip" in sent["Accept-Encoding"]


def test_fetch_inflates_a_gzipped_body(feed_server):
    """A gzip Content-Encoding is undone: the caller gets the feed's own bytes."""
    body = rss(numbered_items(3))
    url = feed_server.serve("/gz.xml", body, gzip=True)

    assert fetch(url).body == body


def test_permanent_redirects_give_the_new_url(feed_server):
    """Only when every hop was permanent (301, 308) is the final URL the feed's new one."""
    final = feed_server.serve("/new.xml", rss(numbered_items(1)))
    permanent = feed_server.redirect("/old.xml", feed_server.redirect("/mid.xml", final, 308))
    mixed = feed_server.redirect("/moved.xml", feed_server.redirect("/tmp.xml", final, 302))

    assert (fetch(permanent).url, fetch(permanent).permanent_url) == (final, final)
    assert (fetch(mixed).url, fetch(mixed).permanent_url) == (final, None)


def test_a_redirect_to_a_host_name_idna_refuses_is_a_readable_fetch_error(feed_server):
    """A redirect to ``http://xn--/feed`` (httpx takes it, IDNA refuses its host) is a lasting
    FetchError naming the target, not an IDNAError escaping the fetch."""
    url = feed_server.redirect("/to-bad-host.xml", "http://xn--/feed")

    with pytest.raises(FetchError) as raised:
        fetch(url)

    assert str(raised.value) == (
        "redirected to http://xn--/feed: not a valid URL: the host name xn-- is not valid IDNA"
    )
    assert not raised.value.transient


def test_a_410_is_feed_gone(feed_server):
    """410 Gone raises FeedGone, which is not transient."""
    url = feed_server.serve("/gone.xml", b"gone", status=410)

    with pytest.raises(FeedGone) as raised:
        fetch(url)

    assert raised.value.status == 410 and not raised.value.transient


def test_a_404_is_a_lasting_error_and_a_503_a_transient_one(feed_server):
    """Client errors are not tried again soon; server errors are, after their Retry-After."""
    missing = feed_server.url("/nowhere.xml")
    busy = feed_server.serve("/busy.xml", b"busy", status=503, headers={"Retry-After": "120"})

    with pytest.raises(FetchError, match="server answered 404") as lasting:
        fetch(missing)
    with pytest.raises(TransientFetchError, match="server answered 503") as transient:
        fetch(busy)

    assert (lasting.value.status, lasting.value.transient) == (404, False)
    assert (transient.value.status, transient.value.retry_after) == (503, 120)


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_the_decoder_never_inflates_more_than_asked(encoding):
    """A compressed chunk yields at most ``limit`` bytes, however much it holds."""
    data = b"x" * 100_000
    chunk = gzip.compress(data) if encoding == "gzip" else zlib.compress(data)

    assert Decoder(encoding).decode(chunk, 10) == b"x" * 10


def test_the_decoder_refuses_unknown_encodings_and_corrupt_data():
    """An encoding it cannot undo, or corrupt gzip, is a FetchError in words."""
    with pytest.raises(FetchError, match="unsupported Content-Encoding 'br'"):
        Decoder("br")
    with pytest.raises(FetchError, match="the compressed body is corrupt"):
        Decoder("gzip").decode(b"not gzip at all", 100)
    assert Decoder(" Identity ").decode(b"as is", 2) == b"as is"


def test_a_cookie_one_feed_sets_is_never_sent_again(feed_server):
    """Fetches keep no cookie jar: requests go to checked IP addresses, shared by host names."""
    first = feed_server.serve(
        "/sets-a-cookie.xml",
        rss(numbered_items(1)),
        headers={"Set-Cookie": "session=s3cret; Path=/"},
    )
    second = feed_server.serve("/another.xml", rss(numbered_items(1)))

    fetch(first)
    fetch(second)

    sent = {name.lower(): value for name, value in feed_server.last_headers("/another.xml").items()}
    assert "cookie" not in sent and sent["user-agent"].startswith("djangofeeds/")
