"""Enclosures and categories of a feed item, from plain dicts, normalized and bounded.

Each reader (feedparser's RSS/Atom in ``readers.py``, a JSON Feed reader) turns
its own shapes into dicts and calls ``enclosures_from`` and ``categories_from``:
one set of rules for every format. What a rule drops is counted in ``dropped``
(a ``collections.Counter`` keyed by a readable reason), which the importer
writes on the ``ImportRun``.
"""

import functools
import ipaddress
import mimetypes
import re
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

# Bounds per item: a hostile item must not turn into 10,000 rows.
MAX_ENCLOSURES = 20
MAX_CATEGORIES = 50
# Column sizes (djangofeeds.models.Enclosure and Category).
URL_MAX_LENGTH = 2000
TYPE_MAX_LENGTH = 100
NAME_MAX_LENGTH = 100
DOMAIN_MAX_LENGTH = 500
# A length past this (8 EiB) does not fit the column and is no real file either.
MAX_LENGTH = 2**63 - 1

MIME_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*")
WHITESPACE = re.compile(r"\s+")
# No NUL (PostgreSQL refuses it) and no lone surrogates (not encodable).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# Hosts that name the visitor's own machine or network rather than a publisher's.
LOCAL_HOSTS = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa")


@dataclass(frozen=True)
class ParsedEnclosure:
    url: str
    type: str = ""
    length: int | None = None  # bytes; None when unknown


def enclosures_from(items, base_url="", dropped=None):
    """``[{"url", "type", "length"}, ...]`` as ``ParsedEnclosure``s worth storing.

    URLs are resolved against ``base_url``; only http(s) URLs to public hosts
    are kept (no ``javascript:``, ``data:``, or links into the reader's own
    network); the first of several with one URL wins. A length that is not a
    plain non-negative number is unknown (None). A missing type is guessed
    from the URL's extension.
    """
    dropped = dropped if dropped is not None else Counter()
    kept, seen = [], set()
    for item in items:
        url = enclosure_url(item.get("url"), base_url)
        if not url:
            dropped["enclosure URLs that are not public http(s) links"] += 1
            continue
        if url in seen:
            continue
        if len(kept) == MAX_ENCLOSURES:
            dropped[f"enclosures over {MAX_ENCLOSURES} per item"] += 1
            continue
        seen.add(url)
        length = enclosure_length(item.get("length"))
        if length is None and str(item.get("length") or "").strip() not in ("", "0"):
            dropped["enclosure lengths that are not a number (stored as unknown)"] += 1
        kept.append(ParsedEnclosure(url=url, type=mime_type(item.get("type"), url), length=length))
    return kept


def first_enclosure_url(items, base_url=""):
    """The URL of the first enclosure ``enclosures_from`` would keep, or "": what
    identifies an episode without id or link (``entries.choose_guids``)."""
    return next((url for item in items if (url := enclosure_url(item.get("url"), base_url))), "")


def categories_from(items, dropped=None):
    """``[{"name", "domain"}, ...]`` as unique ``(name, domain)`` pairs, at most ``MAX_CATEGORIES``.

    Names are trimmed, their whitespace collapsed and their length bounded;
    empty names are skipped. The domain (RSS ``domain``, Atom ``scheme``) is
    trimmed and bounded the same way.
    """
    dropped = dropped if dropped is not None else Counter()
    kept, seen, over = [], set(), 0
    for item in items:
        name = one_line(item.get("name"), NAME_MAX_LENGTH)
        if not name:
            continue
        pair = (name, one_line(item.get("domain"), DOMAIN_MAX_LENGTH))
        if pair in seen:
            continue
        if len(kept) == MAX_CATEGORIES:
            over += 1
            continue
        seen.add(pair)
        kept.append(pair)
    if over:
        dropped[f"categories over {MAX_CATEGORIES} per item"] += over
    return kept


def one_line(value, limit):
    text = WHITESPACE.sub(" ", UNSTORABLE.sub("", str(value or ""))).strip()
    return text[:limit].rstrip()


def enclosure_url(value, base_url=""):
    """The absolute http(s) URL of an enclosure, or "" when it is not one to link to."""
    url = UNSTORABLE.sub("", str(value or "")).strip()
    if not url:
        return ""
    try:
        if base_url and not url.lower().startswith(("http://", "https://")):
            url = urljoin(base_url, url)
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:  # a malformed IPv6 literal, a bad port
        return ""
    if parts.scheme.lower() not in ("http", "https") or not host or len(url) > URL_MAX_LENGTH:
        return ""
    if parts.username or parts.password or not public_host(host):
        return ""
    return url


@functools.lru_cache(maxsize=4096)  # a feed's enclosures share one or two hosts
def public_host(host):
    """False for loopback, private, link-local and reserved addresses and local names.

    Only what the URL says: no DNS lookup (a page must not send visitors'
    browsers into their own network; names that resolve there are the
    publisher's business, as for any link in a post).
    """
    host = host.strip("[]").rstrip(".").lower()
    single_label = "." not in host and ":" not in host  # an intranet name
    if host in LOCAL_HOSTS or host.endswith(LOCAL_SUFFIXES) or single_label:
        return False
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return not host.replace(".", "").isdigit()  # 2130706433, 127.1: numeric forms
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return address.is_global


def enclosure_length(value):
    """Bytes as a non-negative int; None for anything else ("abc", "-5", "1e3", "")."""
    text = str(value if value is not None else "").strip()
    if not re.fullmatch(r"[0-9]{1,19}", text):
        return None
    length = int(text)
    return length if length <= MAX_LENGTH else None


def mime_type(value, url=""):
    """A lower-case ``type/subtype`` without parameters, guessed from the URL if absent."""
    text = str(value or "").split(";")[0].strip().lower()
    if MIME_TYPE.fullmatch(text) and len(text) <= TYPE_MAX_LENGTH:
        return text
    guessed, _ = mimetypes.guess_type(urlsplit(url).path) if url else (None, None)
    return guessed or ""
