"""The visitor's IP address, as the comment rate limit counts it.

Public: a host may use ``client_ip`` wherever it needs the same address (this
repository's project gives it to django-axes, so login lockouts and the
comment limit agree on who a visitor is).
"""

import contextlib
import ipaddress
from functools import lru_cache

from blog import conf


def client_ip(request):
    """The visitor's IP address, or None when there is none to be had.

    REMOTE_ADDR, unless it is one of ``BLOG_TRUSTED_PROXIES``: then the
    X-Forwarded-For entries are read from the right, past the trusted proxies,
    and the first address that is not one of them is the visitor (everything
    to its left was written by the client, who may write anything). A
    malformed entry ends the walk at the last address known to be true.

    None when REMOTE_ADDR is no address: behind a Unix socket it is "" or a
    path, and a malformed value must not reach an inet column (PostgreSQL
    refuses it).
    """
    address = plain_ip(request.META.get("REMOTE_ADDR", ""))
    proxies = trusted_proxies(tuple(conf.BLOG_TRUSTED_PROXIES))
    forwarded = request.headers.get("X-Forwarded-For", "").split(",")
    while address and is_trusted(address, proxies) and forwarded:
        hop = plain_ip(forwarded.pop())
        if hop is None:
            break
        address = hop
    return address


@lru_cache(maxsize=8)
def trusted_proxies(networks):
    """``BLOG_TRUSTED_PROXIES`` as networks ("10.0.0.1" is 10.0.0.1/32); parsed once."""
    return tuple(ipaddress.ip_network(network, strict=False) for network in networks)


def is_trusted(address, proxies):
    address = ipaddress.ip_address(address)
    return any(address in network for network in proxies)


def plain_ip(text):
    """``text`` as an IP address without an IPv6 zone ("fe80::1%eth0"), or None."""
    with contextlib.suppress(ValueError):
        address = ipaddress.ip_address(text.strip())  # a malformed zone ("::%") is no address
        # The zone means nothing off the host, and an inet column refuses it.
        return str(type(address)(int(address)))
    return None
