"""WebSub on the wire: a feed's hub and ``self`` links, pushed content's signature, the hub POST."""

import hashlib
import hmac
import html
import json
import re
import time
from dataclasses import dataclass

import httpx

from djangofeeds import conf
from djangofeeds.fetching.addresses import check_url, host_header, pinned
from djangofeeds.fetching.errors import FetchError
from djangofeeds.fetching.http import describe
from djangofeeds.fetching.transport import (
    DEADLINE_TIMEOUTS,
    deadline_at,
    shared_client,
    time_left,
    user_agent,
)

MAX_REDIRECTS = 5
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


class HubError(Exception):
    """The hub could not be asked, or refused the request."""


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


def post_form(url, data):
    """POST ``data`` form-encoded, checked as fetches are; 307/308 (POST kept) followed."""
    timeout = conf.DJANGOFEEDS_FETCH_TIMEOUT
    deadline = time.monotonic() + timeout * DEADLINE_TIMEOUTS
    client = shared_client(timeout)
    target = httpx.URL(url)
    try:
        with deadline_at(deadline):
            for _ in range(MAX_REDIRECTS + 1):
                address = check_url(target, time_left(deadline, timeout))
                response = client.post(
                    pinned(target, address),
                    data=data,
                    headers={"User-Agent": user_agent(), "Host": host_header(target)},
                    extensions={"sni_hostname": target.raw_host.decode("ascii")},
                )
                if response.status_code in (307, 308) and "location" in response.headers:
                    target = target.join(response.headers["location"])
                    continue
                if not 200 <= response.status_code < 300:
                    text = response.text[:200].strip()
                    raise HubError(f"the hub answered {response.status_code} {text}".strip())
                return response
    except FetchError as exc:
        raise HubError(str(exc)) from exc
    except httpx.HTTPError as exc:
        raise HubError(f"network error: {describe(exc)}") from exc
    raise HubError(f"more than {MAX_REDIRECTS} redirects")
