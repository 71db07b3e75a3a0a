"""The fidelity check: one corpus document through ``parse()``, compared with feedparser's reading.

Used by tests/djangofeeds/parsing/test_fidelity.py on feedparser 6.0.14's own test
corpus (vendored in tests/corpus/feedparser, MIT-style licence beside it).
``check`` returns the kinds of difference found in one document, each a short
string; the test compares them with the reviewed list of intended ones.
"""

import html
import re
from pathlib import Path

import feedparser
import nh3

from djangofeeds.parsing import fastatom, fastrss, feedparser_reader
from djangofeeds.parsing.entries import MAX_ENTRIES, NotAFeed, to_datetime
from djangofeeds.parsing.feedparser_reader import stored
from djangofeeds.parsing.readers import parse
from djangofeeds.parsing.sanitize import (
    CONTENT_TAGS,
    clean,
    markup_left,
    plain_text,
    safe_html,
    title_text,
    web_link,
)

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "feedparser"
# Every document is served as generic XML, so that feedparser reads it by its
# own declaration (the corpus's HTTP header comments are not replayed).
CONTENT_TYPE = "application/xml"
TAG_NAME = re.compile(r"</?([a-zA-Z][a-zA-Z0-9]*)")
URL_ATTRIBUTE = re.compile(r'\s(?:href|src)="([^"]*)"')
HTML_TYPES = {"text/html", "application/xhtml+xml"}
ACTIVE = re.compile(
    r"<script|<style|<iframe|<svg|<math|<form|<object|<embed|\son\w+\s*=|javascript:", re.I
)


def corpus_files():
    return sorted(CORPUS.rglob("*.xml"))


def name_of(path):
    return path.relative_to(CORPUS).as_posix()


def url_of(path):
    return "http://example.org/corpus/" + name_of(path)


def check(path):
    """The differences of one document: ``set`` of short labels (empty when faithful)."""
    body, url = path.read_bytes(), url_of(path)
    found = set()
    reading = feedparser.parse(
        body, response_headers={"content-location": url, "content-type": CONTENT_TYPE}
    )
    try:
        ours = parse(body, url=url, content_type=CONTENT_TYPE)
    except NotAFeed:
        if reading.version or reading.entries:
            found.add("rejected, feedparser found a feed")
        return found
    if ours.parser in ("fastrss", "fastatom"):
        slow = feedparser_reader.parse(body, url=url, content_type=CONTENT_TYPE)
        slow.parser = ours.parser
        # Entries compare with their enclosures and categories; what they dropped is compared here.
        if slow != ours or slow.all_dropped() != ours.all_dropped():
            found.add("fast reader differs from the feedparser path")
    # Titles declared plain text keep what looks like a tag ("Nice <gorilla>"): not markup.
    literal = {title(e) for e in [reading.feed, *reading.entries] if declared_text(e)}
    titles = [t for t in [ours.title, *(e.title for e in ours.entries)] if t not in literal]
    for text in [ours.description, *titles, *(entry.author for entry in ours.entries)]:
        if markup_left(text):
            found.add("markup in a plain-text field")
    for entry in ours.entries:
        if ACTIVE.search(entry.content) or any(
            name.lower() not in CONTENT_TAGS for name in TAG_NAME.findall(entry.content)
        ):
            found.add("active markup in content")
    if title(reading.feed, 500) != ours.title:
        found.add("feed title")
    expected = [expectation(entry) for entry in reading.entries]
    for entry in ours.entries:
        found |= compare(entry, expected)
    distinct = {e["guid"] or e["link"] or (e["title"], e["text"]) for e in expected}
    if len(ours.entries) < min(len(distinct), MAX_ENTRIES):
        found.add("entries missing")
    return found


def visible_text(markup):
    """The text of a body, markup taken away at most twice (escaped HTML shown as text stays
    apart from rendered HTML: plain_text goes on decoding titles escaped more often)."""
    text = clean(markup)
    for _ in range(2):
        if "<" not in text and "&" not in text:
            break
        text = html.unescape(nh3.clean(text, tags=set()))
        if not markup_left(text):
            break
    return clean(" ".join(text.split()))


def expectation(entry):
    """What feedparser's reading of an entry says we should store."""
    details = [*entry.get("content", []), entry.get("summary_detail")]
    detail = next((d for d in details if d and d.get("value")), {})
    body = detail.get("value", "")
    return {
        "guid": entry.get("id", "").strip(),
        "title": title(entry),
        "link": web_link(entry.get("link")),
        "author": plain_text(entry.get("author"))[:500],
        "published_at": to_datetime(
            stored(entry, "published_parsed")
            or stored(entry, "created_parsed")
            or stored(entry, "updated_parsed")
        ),
        "updated_at": to_datetime(stored(entry, "updated_parsed")),
        "text": visible_text(body),
        # feedparser resolved them (xml:base, the document's URL): the allowlist's only.
        "links": links_of(safe_html(body)) if detail.get("type") in HTML_TYPES else [],
    }


def links_of(markup):
    """The link and image URLs of safe HTML, in order."""
    return [html.unescape(url) for url in URL_ATTRIBUTE.findall(markup)]


def declared_text(element):
    """Whether feedparser read the element's title as plain text (Atom type="text", RSS text)."""
    return (element.get("title_detail") or {}).get("type") == "text/plain"


def title(element, limit=None):
    """The title as we should store it: as written if feedparser read it as declared text,
    else HTML made text."""
    return title_text(element.get("title"), declared_text=declared_text(element), limit=limit)


def compare(entry, expected):
    """Differences between a stored entry and the feedparser entry it came from."""
    candidates = [e for e in expected if e["guid"] and e["guid"] == entry.guid] or [
        e for e in expected if (e["title"], e["link"]) == (entry.title, entry.link)
    ]
    if not candidates:
        return {"entry not found in feedparser's reading"}
    mine = {
        "title": entry.title,
        "link": entry.link,
        "author": entry.author,
        "published_at": entry.published_at,
        "updated_at": entry.updated_at,
        "text": visible_text(entry.content),
        "links": links_of(entry.content),
    }
    best = min(candidates, key=lambda e: sum(e[key] != value for key, value in mine.items()))
    found = {f"entry {key}" for key, value in mine.items() if best[key] != value}
    if best["guid"] and best["guid"] != entry.guid:
        found.add("entry guid")
    return found


def fast_reader_takes(path, reader=fastrss):
    return reader.parse(path.read_bytes(), url=url_of(path), content_type=CONTENT_TYPE) is not None


def fast_atom_reader_takes(path):
    return fast_reader_takes(path, fastatom)
