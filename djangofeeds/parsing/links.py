"""Feed discovery on bytes: is a document an HTML page, and which feeds does it link to.

Pure functions, no network and no Django: ``djangofeeds.discovery.finder`` fetches and
calls them. HTML is read with the standard library's ``html.parser``, which
takes broken markup as browsers do (unclosed tags, stray quotes, uppercase
names) and never raises on it.
"""

import codecs
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

# <link rel="alternate" type=...> values that announce a feed. application/json
# is what some JSON Feed publishers declare; RSS 1.0 sites use rdf+xml.
FEED_TYPES = {
    "application/rss+xml": "RSS",
    "application/atom+xml": "Atom",
    "application/rdf+xml": "RSS 1.0",
    "application/feed+json": "JSON Feed",
    "application/json": "JSON Feed",
}
HTML_TYPES = {"text/html", "application/xhtml+xml"}
# Root elements of the feed formats (also with a namespace prefix, <atom:feed>).
FEED_ROOTS = {"rss", "feed", "rdf"}
# HTML says a <meta charset> must come within the first 1024 bytes.
CHARSET_PRESCAN = 1024
# Enough to get past an XML declaration, a doctype and comments to the root.
ROOT_PRESCAN = 64 * 1024


@dataclass(frozen=True)
class FeedLink:
    """A feed a page links to: its absolute URL, its title and its declared type."""

    url: str
    title: str = ""
    type: str = ""

    @property
    def label(self):
        """The title, or the format's name when the page gives none."""
        return self.title or FEED_TYPES.get(self.type, "feed")


def media_type(content_type):
    """``text/html; charset=utf-8`` -> ``text/html``."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_html_page(body, content_type=""):
    """Whether ``body`` is an HTML page rather than a feed, judged by its root element.

    A feed served as text/html (a common misconfiguration) is still a feed;
    an HTML page served as XML is still a page.
    """
    sniffer = _RootSniffer()
    sniffer.feed(body[:ROOT_PRESCAN].decode("latin-1"))
    root = sniffer.root.rpartition(":")[2]
    if root in FEED_ROOTS:
        return False
    if root == "html" or sniffer.html_doctype:
        return True
    return media_type(content_type) in HTML_TYPES


def feed_links(body, base_url, content_type=""):
    """The feeds an HTML page links to with ``<link rel="alternate">``, in page order.

    Relative ``href``s are resolved against the page's ``<base href>`` (itself
    resolved against ``base_url``, the URL the page was fetched from); only
    http(s) URLs are kept, each once.
    """
    parser = _LinkFinder()
    parser.feed(decode(body, content_type))
    parser.close()
    base = urljoin(base_url, parser.base) if parser.base else base_url
    found, seen = [], set()
    for href, title, kind in parser.links:
        url = urljoin(base, href)
        if urlsplit(url).scheme in ("http", "https") and url not in seen:
            seen.add(url)
            found.append(FeedLink(url=url, title=title, type=kind))
    return found


def decode(body, content_type=""):
    """The page as text: the charset of the header, a BOM, or <meta charset>; else UTF-8,
    else windows-1252 (HTML's default)."""
    for bom, encoding in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le")):
        if body.startswith(bom):
            return body[len(bom) :].decode(encoding, "replace")
    if body.startswith(codecs.BOM_UTF16_BE):
        return body[2:].decode("utf-16-be", "replace")
    declared = _charset(content_type)
    if not declared:
        prescan = _CharsetFinder()
        prescan.feed(body[:CHARSET_PRESCAN].decode("latin-1"))
        declared = prescan.charset
    for encoding in (declared, "utf-8"):
        if encoding and _known(encoding):
            try:
                return body.decode(encoding)
            except UnicodeDecodeError:
                continue
    return body.decode("cp1252", "replace")


def _charset(content_type):
    for parameter in (content_type or "").split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip("\"'")
    return ""


def _known(encoding):
    try:
        codecs.lookup(encoding)
    except LookupError:
        return False
    return True


def _tokens(value):
    return (value or "").lower().split()


class _LinkFinder(HTMLParser):
    """Collects ``<link rel="alternate">`` of feed types and the first ``<base href>``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []  # (href, title, type)
        self.base = ""

    def handle_starttag(self, tag, attrs):
        # html.parser lowercases tag and attribute names; values keep their case.
        attributes = dict(attrs)
        if tag == "base" and not self.base and (attributes.get("href") or "").strip():
            self.base = attributes["href"].strip()
        elif tag == "link" and "alternate" in _tokens(attributes.get("rel")):
            kind = media_type(attributes.get("type"))
            href = (attributes.get("href") or "").strip()
            if kind in FEED_TYPES and href:
                title = " ".join((attributes.get("title") or "").split())
                self.links.append((href, title, kind))

    handle_startendtag = handle_starttag


class _CharsetFinder(HTMLParser):
    """``<meta charset=...>`` or ``<meta http-equiv="content-type" content="...; charset=...">``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.charset = ""

    def handle_starttag(self, tag, attrs):
        if tag != "meta" or self.charset:
            return
        attributes = dict(attrs)
        if attributes.get("charset"):
            self.charset = attributes["charset"].strip()
        elif (attributes.get("http-equiv") or "").lower() == "content-type":
            self.charset = _charset(attributes.get("content"))

    handle_startendtag = handle_starttag


class _RootSniffer(HTMLParser):
    """The name of the first element, and whether a ``<!DOCTYPE html>`` came before it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = ""
        self.html_doctype = False

    def handle_starttag(self, tag, attrs):
        self.root = self.root or tag

    handle_startendtag = handle_starttag

    def handle_decl(self, decl):
        if not self.root and _tokens(decl)[:2] == ["doctype", "html"]:
            self.html_doctype = True
