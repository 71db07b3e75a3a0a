"""Which URLs and addresses a feed may be fetched from: no private addresses, however spelled.

``url_problem`` judges what a URL says (used as URLs are added); ``check_url``
also resolves the host, refuses it if any of its addresses is not public and
returns the address to connect to, which ``pinned`` puts in the URL so DNS
cannot change under the fetch.
"""

import ipaddress
import re
import socket
import threading

import httpx

from djangofeeds import conf
from djangofeeds.fetching.errors import FetchError, RefusedAddress, TransientFetchError

# IPv6 prefixes whose last 32 bits are an IPv4 address the packets end up at:
# IPv4-compatible (deprecated, still routed by some stacks) and NAT64.
IPV4_IN_LAST_32_BITS = [ipaddress.ip_network("::/96"), ipaddress.ip_network("64:ff9b::/96")]
# Local-use NAT64 (RFC 8215): translated by the site's own gateway, never public.
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")


def url_problem(url):
    """Why ``url`` can never be fetched (scheme, credentials, host, port, a private IP literal).

    None when nothing is wrong. Checks what the URL itself says, without DNS;
    used to vet URLs as they are added (admin, commands, OPML). ``check_url``
    repeats it at fetch time (every redirect target too) and also checks every
    address the host resolves to. Never raises: whatever httpx or IDNA refuse
    is a reason like the others.
    """
    try:
        url, host = read_url(url)
    except UnreadableURL as exc:
        return str(exc)
    if url.scheme not in ("http", "https"):
        return f"only http and https URLs can be fetched, not {url.scheme or 'none'!r}"
    if url.userinfo:
        return "URLs with a user name or password are not fetched"
    if not host:
        return "the URL has no host"
    if url.port == 0:
        return "port 0 cannot be fetched"
    if url.port is not None and not 0 < url.port <= 65535:
        return "the port is not a number from 1 to 65535"
    if not conf.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS:
        literal = ip_literal(host)
        if literal is not None and not is_public(str(literal)):
            return f"{host} is a non-public address ({literal}): refused"
    return None


class UnreadableURL(ValueError):
    """httpx or IDNA cannot read the URL; the message says why, in words."""


def read_url(url):
    """``(httpx.URL, host)`` for ``url`` (a string or an httpx.URL), or ``UnreadableURL``.

    The one place that catches what the URL and IDNA libraries raise: httpx
    takes an A-label as given ("xn--"), and decoding it for ``.host`` is where
    IDNA refuses it.
    """
    try:
        url = httpx.URL(url) if isinstance(url, str) else url
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise UnreadableURL(f"not a valid URL: {exc}") from exc
    try:
        return url, url.host
    except UnicodeError as exc:  # idna.IDNAError is one
        raw_host = url.raw_host.decode("ascii", "replace")
        raise UnreadableURL(f"not a valid URL: the host name {raw_host} is not valid IDNA") from exc


def ip_literal(host):
    """The IP address a host name spells, also in the old forms 127.1, 0x7f.0.0.1, 2130706433."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if re.fullmatch(r"[0-9a-fA-FxX.]+", host) and re.match(r"[0-9]", host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def check_url(url, timeout):
    """Refuse what must not be fetched; return the address to connect to."""
    problem = url_problem(url)
    if problem:
        raise FetchError(problem)
    host = url.raw_host.decode("ascii")
    port = url.port or (443 if url.scheme == "https" else 80)
    addresses = resolve(host, port, timeout)
    if not conf.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS:
        for address in addresses:
            if not is_public(address):
                raise RefusedAddress(
                    f"{url.host} resolves to a non-public address ({address}): refused"
                )
    return addresses[0]


def resolve(host, port, timeout):
    """The addresses of ``host``; DNS gets ``timeout`` seconds (getaddrinfo has no limit)."""
    try:
        return [str(ipaddress.ip_address(host.strip("[]")))]
    except ValueError:
        pass
    outcome = {}

    def lookup():
        try:
            outcome["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            outcome["error"] = exc

    # A lookup that hangs is left to finish on its own in this daemon thread.
    thread = threading.Thread(target=lookup, name=f"resolve {host}", daemon=True)
    thread.start()
    thread.join(timeout)
    if "infos" in outcome:
        return [info[4][0] for info in outcome["infos"]]
    error = outcome.get("error")
    if error is None:
        raise TransientFetchError(f"resolving {host} took longer than {timeout:.3g}s")
    if getattr(error, "errno", None) == socket.EAI_NONAME:
        raise FetchError(f"cannot resolve {host}: no such host")
    raise TransientFetchError(f"cannot resolve {host}: {error}")


def is_public(address):
    """Whether ``address`` is a global unicast one, judging an IPv6 address by the IPv4 it carries.

    Python's ``is_global`` takes ``::7f00:1`` (IPv4-compatible), ``2002:7f00:1::``
    (6to4), ``64:ff9b::a00:1`` (NAT64) and ``fec0::`` (site-local) for public.
    """
    ip = ipaddress.ip_address(address.split("%")[0])
    if ip.version == 6:
        if ip.is_site_local or ip in LOCAL_NAT64:
            return False
        if ip.ipv4_mapped or ip.sixtofour:
            ip = ip.ipv4_mapped or ip.sixtofour
        elif any(ip in network for network in IPV4_IN_LAST_32_BITS):
            ip = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip.is_global and not ip.is_multicast


def pinned(url, address):
    """The URL with its host replaced by the checked address, so DNS cannot change under us."""
    return url.copy_with(host=address)


def host_header(url):
    """The Host header of ``url``: its host name (IPv6 in brackets), with a port if it has one."""
    host = url.raw_host.decode("ascii")
    if ":" in host:
        host = f"[{host}]"
    return host if url.port is None else f"{host}:{url.port}"
