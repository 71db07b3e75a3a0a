"""WebSub's pure parts: hub and self discovery, and the signature of pushed content."""

import hashlib
import hmac

import httpx
import pytest

from djangofeeds.push.protocol import check_signature, discover

FEED = "https://example.com/feed.xml"
ATOM = b"""<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>t</title>
  <link rel="hub" href="https://hub.example/"/>
  <link href="/feed.atom?a=1&amp;b=2" rel="self"/>
  <entry><link rel="hub" href="https://not-this.example/"/></entry>
</feed>"""
RSS = b"""<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>
<atom:link rel='hub' href='https://pubsubhubbub.appspot.com/'/>
<atom:link rel="self" type="application/rss+xml" href="https://example.com/rss"/>
<link>https://example.com/</link><item><title>x</title></item></channel></rss>"""


def test_discover_atom_links_in_the_head_resolved_and_unescaped():
    """Atom's hub and self links are found before the first entry, relative ones resolved."""
    links = discover(httpx.Headers(), ATOM, FEED)
    assert links.hubs == ["https://hub.example/"]
    assert links.topic == "https://example.com/feed.atom?a=1&b=2"


def test_discover_rss_atom_link_elements():
    """RSS carries WebSub links as atom:link; the plain RSS <link> is not one."""
    links = discover(httpx.Headers(), RSS, FEED)
    assert links.hubs == ["https://pubsubhubbub.appspot.com/"]
    assert links.topic == "https://example.com/rss"


def test_discover_json_feed_hubs_of_type_websub():
    """JSON Feed: ``hubs`` entries of type WebSub, and ``feed_url`` as self."""
    body = (
        b'{"version": "https://jsonfeed.org/version/1.1", "feed_url": "https://e.com/f.json",'
        b' "hubs": [{"type": "rssCloud", "url": "https://cloud/"},'
        b' {"type": "WebSub", "url": "https://hub.e.com/"}], "items": []}'
    )
    links = discover(httpx.Headers(), body, FEED)
    assert links.hubs == ["https://hub.e.com/"]
    assert links.topic == "https://e.com/f.json"


def test_discover_link_headers_come_before_the_document():
    """HTTP Link headers win over the document's links."""
    headers = httpx.Headers(
        [
            ("Link", '<https://header-hub.example/>; rel="hub", </self>; rel="self"'),
            ("Link", "<https://second-hub.example/>; rel=hub"),
        ]
    )
    links = discover(headers, ATOM, FEED)
    assert links.hubs == ["https://header-hub.example/", "https://second-hub.example/"]
    assert links.topic == "https://example.com/self"


def test_discover_nothing_without_hub():
    """A feed without a hub link has no hubs (and no topic from nowhere)."""
    links = discover(httpx.Headers(), b"<rss><channel><item/></channel></rss>", FEED)
    assert links.hubs == [] and links.topic is None


def test_discover_ignores_non_http_links():
    """A hub link to javascript: or a malformed JSON document gives nothing."""
    body = b'<feed><link rel="hub" href="javascript:alert(1)"/></feed>'
    assert discover(httpx.Headers(), body, FEED).hubs == []
    assert discover(httpx.Headers(), b"{not json", FEED).hubs == []


def sign(method, body, secret="s3cret"):
    digest = hmac.new(secret.encode(), body, getattr(hashlib, method)).hexdigest()
    return f"{method}={digest}"


@pytest.mark.parametrize("method", ["sha1", "sha256", "sha384", "sha512"])
def test_check_signature_accepts_each_method(method):
    """A signature under sha1, sha256, sha384 or sha512 with the secret is valid."""
    assert check_signature("s3cret", b"body", sign(method, b"body")) == (True, "")
    assert check_signature("s3cret", b"body", sign(method, b"body").upper().replace("SHA", "sha"))[
        0
    ]


@pytest.mark.parametrize(
    "header, why",
    [
        (None, "no X-Hub-Signature"),
        ("", "no X-Hub-Signature"),
        (sign("sha256", b"other body"), "does not match"),
        (sign("sha256", b"body", secret="wrong"), "does not match"),
        (sign("sha256", b"body")[:-2], "does not match"),
        ("md5=" + hashlib.md5(b"body").hexdigest(), "unknown signature method"),
        ("sha256=\u00e9\u00e9", "does not match"),
        ("sha256", "does not match"),
    ],
    ids=["missing", "empty", "wrong", "wrong-secret", "truncated", "unknown", "non-ascii", "bare"],
)
def test_check_signature_refuses(header, why):
    """Missing, wrong, wrong-secret, truncated, unknown-method signatures are refused, with why."""
    ok, reason = check_signature("s3cret", b"body", header)
    assert not ok and why in reason
