"""A post's story key: what its canonical link says it is (SPEC "Stories"), pure.

Two posts of different feeds carry the same item when their canonical links are equal:
``feedburner:origLink`` when the feed has one (FeedBurner's own link is a redirect),
else the link, else the guid when it is a URL. The canonical form drops what does not
change the article: the scheme (http or https), the host's case, a ``www.`` prefix, a
default port, the fragment, and the tracking parameters (``utm_*``, ``fbclid``,
``gclid``, ``mc_cid``, ``mc_eid``); the path and the other parameters stay as written.
"""

from hashlib import sha256
from urllib.parse import parse_qsl, urlencode, urlsplit

TRACKING_PREFIXES = ("utm_",)
TRACKING = frozenset({"fbclid", "gclid", "mc_cid", "mc_eid"})
DEFAULT_PORTS = {"http": 80, "https": 443}
KEY_LENGTH = 40


def canonical_link(url):
    """``host/path?query`` of an http(s) URL, as the module says; "" for anything else."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # a port that is not a number, a bracket left open
        return ""
    scheme, host = parts.scheme.lower(), (parts.hostname or "").rstrip(".")
    if scheme not in DEFAULT_PORTS or not host:
        return ""
    host = host.removeprefix("www.")
    if port and port != DEFAULT_PORTS[scheme]:
        host = f"{host}:{port}"
    query = [
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if name.lower() not in TRACKING and not name.lower().startswith(TRACKING_PREFIXES)
    ]
    path = parts.path or "/"
    return f"{host}{path}?{urlencode(query)}" if query else f"{host}{path}"


def story_key(link, guid="", original_link=""):
    """The key of a post's story: a hash of its canonical link (see the module), or "".

    A site's front page is no article's: feeds that link every item to their home page
    (status pages, job boards) would otherwise make all their items one story.
    """
    for candidate in (original_link, link, guid):
        canonical = canonical_link(candidate)
        if canonical and canonical.partition("/")[2]:  # not "host/": a front page
            return sha256(canonical.encode()).hexdigest()[:KEY_LENGTH]
    return ""
