"""WebSub's pure parts: a feed's hub and ``self`` links, and the signature of pushed content."""

import hashlib
import hmac
import html
import json
import re
from dataclasses import dataclass

import httpx

SIGNATURE_METHODS = {
    "sha1": hashlib.sha1,
    "sha256": hashlib.sha256,
    "sha384": hashlib.sha384,
    "sha512": hashlib.sha512,
}
# Hub links sit in the document's head: only the part before the first entry is searched.
HEAD_LIMIT = 64 * 1024
LINK_TAG = re.compile(rb"<(?:[\w.-]+:)?link\b([^>]*)>", re.IGNORECASE)
FIRST_ENTRY = re.compile(rb"<(?:[\w.-]+:)?(?:item|entry)[\s>]", re.IGNORECASE)
ATTRIBUTE = re.compile(rb"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
LINK_VALUE = re.compile(r"<([^>]*)>([^<]*)")
REL_PARAM = re.compile(r"""rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))""", re.IGNORECASE)


@dataclass
class Links:
    """What discovery found: the hub URLs and the topic (``self``) URL."""

    hubs: list
    topic: str | None


def discover(headers, body, url):
    """The hubs and ``self`` of a fetched feed: ``Link`` headers first, then the document."""
    from_headers = header_links(headers.get_list("link") if headers else [], url)
    from_document = document_links(body or b"", url)
    hubs = from_headers.get("hub") or from_document.get("hub") or []
    topic = (from_headers.get("self") or from_document.get("self") or [None])[0]
    return Links(hubs=hubs, topic=topic)


def header_links(values, base):
    """``{rel: [url, ...]}`` from HTTP ``Link`` values (RFC 8288), resolved against ``base``."""
    found = {}
    for value in values:
        for target, params in LINK_VALUE.findall(value):
            for match in REL_PARAM.finditer(params):
                for rel in (match[1] or match[2]).lower().split():
                    add_link(found, rel, target, base)
    return found


def document_links(body, base):
    """``{rel: [url, ...]}`` from an Atom/RSS head (``atom:link``) or a JSON Feed (``hubs``)."""
    found = {}
    if body.lstrip()[:1] == b"{":
        try:
            document = json.loads(body)
        except ValueError:
            return found
        if not isinstance(document, dict):
            return found
        for hub in document.get("hubs") or []:
            if isinstance(hub, dict) and str(hub.get("type", "")).lower() == "websub":
                add_link(found, "hub", hub.get("url"), base)
        add_link(found, "self", document.get("feed_url"), base)
        return found
    head = body[:HEAD_LIMIT]
    entry = FIRST_ENTRY.search(head)
    head = head[: entry.start()] if entry else head
    for tag in LINK_TAG.finditer(head):
        attributes = {
            name.lower().decode("ascii"): (quoted or single).decode("utf-8", "replace")
            for name, quoted, single in ATTRIBUTE.findall(tag[1])
        }
        for rel in attributes.get("rel", "").lower().split():
            add_link(found, rel, html.unescape(attributes.get("href", "")), base)
    return found


def add_link(found, rel, target, base):
    if rel not in ("hub", "self") or not isinstance(target, str) or not target.strip():
        return
    try:
        url = str(httpx.URL(base).join(target.strip())) if base else target.strip()
    except (httpx.InvalidURL, ValueError):
        return
    if url.startswith(("http://", "https://")) and url not in found.get(rel, []):
        found.setdefault(rel, []).append(url)


def check_signature(secret, body, header):
    """``(True, "")`` when ``header`` (``X-Hub-Signature``) signs ``body`` with ``secret``,
    else ``(False, why)``. Compared in constant time."""
    if not header:
        return False, "no X-Hub-Signature header"
    method, _, given = header.strip().partition("=")
    digest = SIGNATURE_METHODS.get(method.strip().lower())
    if digest is None:
        return False, f"unknown signature method {method[:20]!r}"
    expected = hmac.new(secret.encode(), body, digest).hexdigest()
    if not hmac.compare_digest(expected.encode(), given.strip().lower().encode("utf-8", "replace")):
        return False, f"the {method.lower()} signature does not match"
    return True, ""
