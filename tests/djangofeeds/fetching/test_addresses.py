"""djangofeeds.fetching.addresses: which URLs and addresses a feed may be fetched from."""

import httpx
import pytest

from djangofeeds.fetching.addresses import (
    check_url,
    host_header,
    ip_literal,
    is_public,
    pinned,
    resolve,
    url_problem,
)
from djangofeeds.fetching.errors import FetchError


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("0x7f.0.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("::1", "::1"),
        ("example.com", None),
        ("1.example", None),
    ],
)
def test_ip_literal_reads_the_old_spellings_of_an_address(host, address):
    """127.1, 0x7f.0.0.1 and 2130706433 all spell 127.0.0.1; a host name spells no address."""
    literal = ip_literal(host)
    assert (str(literal) if literal else None) == address


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.216.34", True),
        ("2606:2800:220:1:248:1893:25c8:1946", True),
        ("10.0.0.1", False),
        ("169.254.169.254", False),
        ("::ffff:127.0.0.1", False),
        ("::7f00:1", False),
        ("2002:7f00:1::", False),
        ("64:ff9b::a00:1", False),
        ("64:ff9b:1::1", False),
        ("fec0::1", False),
        ("224.0.0.1", False),
        ("fe80::1%eth0", False),
    ],
)
def test_is_public_judges_ipv6_by_the_ipv4_it_carries(address, public):
    """Only global unicast addresses are public, also when IPv6 wraps a private IPv4 one."""
    assert is_public(address) is public


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("ftp://example.com/feed", "only http and https URLs can be fetched, not 'ftp'"),
        ("http://user:pw@example.com/", "URLs with a user name or password are not fetched"),
        ("http:///feed", "the URL has no host"),
        ("http://0x7f.1/feed", "0x7f.1 is a non-public address (127.0.0.1): refused"),
        ("http://[::1]:8000/", "::1 is a non-public address (::1): refused"),
        ("https://example.com/feed.xml", None),
        ("http://example.com:0/feed", "port 0 cannot be fetched"),
        # IDNA refuses these host names: httpx reads them, its .host raises IDNAError.
        ("http://xn--/", "not a valid URL: the host name xn-- is not valid IDNA"),
        ("http://xn--a.com/", "not a valid URL: the host name xn--a.com is not valid IDNA"),
    ],
)
def test_url_problem_says_why_a_url_can_never_be_fetched(settings, url, problem):
    """A URL's scheme, credentials, missing host or private IP literal is refused in words."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    assert url_problem(url) == problem


def test_url_problem_allows_private_literals_when_the_setting_says_so(settings):
    """DJANGOFEEDS_ALLOW_PRIVATE_HOSTS lets private addresses through, never other schemes."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = True
    assert url_problem("http://127.0.0.1/feed") is None
    assert url_problem("file:///etc/passwd") is not None


def test_check_url_returns_the_address_to_connect_to(settings):
    """A URL that passes the checks yields the address its host resolves to."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = True
    assert check_url(httpx.URL("http://localhost:8000/feed"), 5) in ("127.0.0.1", "::1")
    assert check_url(httpx.URL("http://[::1]/feed"), 5) == "::1"


def test_check_url_refuses_a_name_that_resolves_to_a_private_address(settings):
    """localhost is refused by what it resolves to, though its name is no IP literal."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    with pytest.raises(FetchError, match="localhost resolves to a non-public address"):
        check_url(httpx.URL("http://localhost/feed"), 5)


def test_resolve_takes_an_ip_literal_as_it_is():
    """An IP literal needs no DNS lookup; IPv6 brackets are dropped."""
    assert resolve("[::1]", 80, 5) == ["::1"]
    assert resolve("127.0.0.1", 80, 5) == ["127.0.0.1"]


def test_pinned_and_host_header_keep_the_host_name_for_the_request():
    """The request goes to the checked address; the Host header still names the host."""
    url = httpx.URL("https://example.com:8443/feed.xml?x=1")
    assert str(pinned(url, "93.184.216.34")) == "https://93.184.216.34:8443/feed.xml?x=1"
    assert host_header(url) == "example.com:8443"
    assert host_header(httpx.URL("http://[::1]/feed")) == "[::1]"
