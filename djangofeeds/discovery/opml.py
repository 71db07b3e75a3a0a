"""OPML subscription lists: read the feed URLs out of one, write one from our feeds."""

from dataclasses import dataclass
from xml.etree.ElementTree import Element, SubElement, tostring

from defusedxml import ElementTree as SafeElementTree
from defusedxml.common import DefusedXmlException
from django.utils import timezone


class OPMLError(ValueError):
    """The file is not readable OPML."""


@dataclass(frozen=True)
class Outline:
    url: str
    title: str = ""
    html_url: str = ""


def parse_opml(data):
    """Every outline with an ``xmlUrl``, at any depth (folders nest), in document order."""
    try:
        # defusedxml refuses entity expansion (billion laughs) and external entities.
        root = SafeElementTree.fromstring(data)
    except (SafeElementTree.ParseError, DefusedXmlException) as exc:
        raise OPMLError(f"not readable OPML: {exc}") from exc
    if root.tag != "opml" or root.find("body") is None:
        raise OPMLError("not an OPML document (no <opml> with a <body>)")
    return [
        Outline(
            url=outline.get("xmlUrl", "").strip(),
            title=(outline.get("title") or outline.get("text") or "").strip(),
            html_url=outline.get("htmlUrl", "").strip(),
        )
        for outline in root.find("body").iter("outline")
        if outline.get("xmlUrl") is not None
    ]


def build_opml(feeds, *, title="djangofeeds subscriptions"):
    """OPML 2.0 bytes listing ``feeds`` (anything with url, title and link)."""
    opml = Element("opml", version="2.0")
    head = SubElement(opml, "head")
    SubElement(head, "title").text = title
    SubElement(head, "dateCreated").text = timezone.now().strftime("%a, %d %b %Y %H:%M:%S GMT")
    body = SubElement(opml, "body")
    for feed in feeds:
        name = feed.title or feed.url
        SubElement(
            body,
            "outline",
            type="rss",
            text=name,
            title=name,
            xmlUrl=feed.url,
            htmlUrl=feed.link or "",
        )
    return tostring(opml, encoding="utf-8", xml_declaration=True)
