"""The fast Atom reader's values: text constructs (titles, subtitles, summaries and
content as feedparser's ``pop`` gives them: text, html or xhtml, with the base of
their markup), authors and categories.

Each function returns what feedparser's path would store, or raises ``Refused``
when it cannot be sure, so that feedparser reads the whole document instead.
"""

import re
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from feedparser.api import StrictFeedParser
from feedparser.urls import make_safe_absolute_uri

from djangofeeds.parsing import sanitize
from djangofeeds.parsing.fastrss_values import Refused, text_of

ATOM = "{http://www.w3.org/2005/Atom}"
CATEGORY_ATTRIBUTES = {"term", "scheme", "label"}
AUTHOR_PARTS = {f"{ATOM}{name}" for name in ("name", "email", "uri")}
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
# Text constructs: feedparser's content type for each Atom type (absent: text).
TEXT_TYPES = {
    None: "text/plain",
    "text": "text/plain",
    "html": "text/html",
    "xhtml": "application/xhtml+xml",
}
XHTML = "{http://www.w3.org/1999/xhtml}"
# XHTML elements feedparser would not copy as markup: it calls a handler of its own at their end.
XHTML_HANDLED = {
    name[len("_end_xhtml_") :] for name in dir(StrictFeedParser) if name.startswith("_end_xhtml_")
}
# A namespace declared on a start tag: feedparser copies it as an attribute, ElementTree drops it.
DECLARING_TAG = re.compile(rb"<([\w:.-]+)[^<>]*?\sxmlns[\s:=]")


# feedparser's HTML types for a link (``map_content_type``); no type is text/html.
def content(value, kind, base):
    """``feedparser_reader.content_of`` for one body."""
    value = sanitize.clean(value)
    if not value:
        return ""
    if kind == "text/plain":
        value = sanitize.text_html(value)
    return sanitize.safe_html(value, base=base)


def text_construct(element, base, content=False):
    """``(value, feedparser's type, its base)`` of a title, subtitle, summary or content."""
    allowed = {"type", XML_LANG, XML_BASE}
    kind = element.get("type")
    if set(element.attrib) - allowed or kind not in TEXT_TYPES:
        raise Refused  # out-of-line content, other types: feedparser's path's
    if kind == "xhtml":
        value = xhtml(element)
    elif len(element):
        raise Refused  # markup not declared xhtml: feedparser's reading is its own
    else:
        value = text_of(element)
    written_base = element.get(XML_BASE)
    if written_base is not None:
        if not base:
            raise Refused  # feedparser's own reading of a base without the document's URL
        # The base feedparser records for the value (the markup's links resolve against it).
        base = make_safe_absolute_uri(base, written_base) or base
    if content and not value:
        raise Refused  # feedparser then reads the summary by rules of its own
    return value, TEXT_TYPES[kind], base


def xhtml(element):
    """An xhtml construct as feedparser's ``pop`` gives it: its one ``<div>``'s content,
    elements copied with lower-case names and attributes (rel and type values too)."""
    if len(element) != 1 or (element.text or "").strip():
        raise Refused
    div = element[0]
    if div.tag != f"{XHTML}div" or (div.tail or "").strip():
        raise Refused
    value = escape(div.text or "") + "".join(markup(child) for child in div)
    if not value.isascii():  # feedparser's encoding repairs, on the whole
        whole = ElementTree.Element("value")
        whole.text = value
        value = text_of(whole)
    return value.strip()


def check_declarations(body):
    """Namespaces declared on the root and on xhtml constructs' ``<div>`` only (which
    feedparser drops); one declared elsewhere feedparser would copy into the markup."""
    declaring = DECLARING_TAG.findall(body)
    divs = sum(name.rpartition(b":")[2] == b"div" for name in declaring[1:])
    constructs = body.count(b'type="xhtml"') + body.count(b"type='xhtml'")
    if divs != len(declaring) - 1 or divs > constructs:
        raise Refused


def markup(element):
    if not element.tag.startswith(XHTML):
        raise Refused  # svg, math: feedparser copies their namespace declarations
    name = element.tag[len(XHTML) :].lower()
    if name in XHTML_HANDLED:
        raise Refused
    attributes = {}
    for key, value in element.items():
        key = key.lower()
        if key.startswith("{") or key in attributes:
            raise Refused
        attributes[key] = value.lower() if key in ("rel", "type") else value
    written = "".join(
        f' {key}="{escape(value, {chr(34): "&quot;"})}"' for key, value in attributes.items()
    )
    inner = escape(element.text or "") + "".join(markup(child) for child in element)
    return f"<{name}{written}>{inner}</{name}>" + escape(element.tail or "")


def add_tag(element, tags):
    """A category as ``feedparser_reader.tags_of`` gives feedparser's tag (no repeats)."""
    if len(element) or (element.text or "").strip():
        raise Refused
    if set(element.attrib) - CATEGORY_ATTRIBUTES:
        raise Refused
    term, scheme, label = (element.get(key) for key in ("term", "scheme", "label"))
    if not (term or scheme or label):
        return
    tag = {"name": label or term, "domain": scheme}
    if tag in tags:
        raise Refused  # feedparser drops a repeat by its term, scheme and label
    tags.append(tag)


def read_author(element):
    """The author as feedparser's ``_sync_author_detail`` writes it."""
    if element.attrib or (element.text or "").strip():
        raise Refused
    parts = {}
    for part in element:
        if part.tag not in AUTHOR_PARTS or part.tag in parts or not plain(part):
            raise Refused
        parts[part.tag] = text_of(part)
    name, email = parts.get(f"{ATOM}name"), parts.get(f"{ATOM}email")
    if name and email:
        return f"{name} ({email})"
    return name or email or ""


def plain(element):
    if len(element) or element.attrib:
        raise Refused
    return True
