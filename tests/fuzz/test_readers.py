"""Fuzzed feeds through the whole import: RSS, Atom and JSON Feed documents, mutated.

Fields hold hostile text (escaped, raw or in CDATA), then the bytes may be cut,
repeated or spliced. Served by the local feed server and imported for real:
the import ends imported or failed with a readable reason, never a crash; what
is stored keeps the rules (plain-text authors, titles plain text or shown
escaped, sanitized content, web links only).
"""

import html
import itertools

import pytest
from django.test import Client
from hypothesis import example, given
from hypothesis import strategies as st

from djangofeeds.models import Feed, Outcome
from djangofeeds.parsing.sanitize import CONTENT_TAGS, markup_left
from localservers.feed_server import json_feed, rss
from tests.fuzz.strategies import any_url, hostile_text, scaled
from tests.hostile.helpers import injected, readable
from tests.support.fidelity import TAG_NAME
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db

FIELDS = ["title", "link", "description", "pubDate", "author", "guid", "enclosure", "category"]
DATES = ["Tue, 03 Nov 2026 10:00:00 GMT", "2026-11-03T10:00:00Z", "31 Feb 99999", "-1", "²"]
SNIPPETS = [
    "<script>alert('xss-1')</script>",
    '<a href="javascript:alert(1)">x</a>',
    '<img src=x onerror="xss-2">',
    "<svg><a xlink:href='javascript:x'>y</a></svg>",
    "&lt;b&gt;bold&lt;/b&gt;",
    "&amp;lt;i&amp;gt;twice&amp;lt;/i&amp;gt;",
    "<![CDATA[<b>cdata</b>]]>",
    "<p style='x'>para</p>",
]


def field_text():
    return st.one_of(hostile_text(6), st.sampled_from(SNIPPETS + DATES), any_url())


def written(text, how):
    """``text`` as a feed writes it into XML: escaped, raw, or in CDATA."""
    if how == "escaped":
        return html.escape(text, quote=False)
    if how == "cdata":
        return "<![CDATA[" + text.replace("]]>", "") + "]]>"
    return text


ITEMS = st.lists(
    st.dictionaries(st.sampled_from(FIELDS), field_text(), min_size=1),
    min_size=1,
    max_size=4,
)
WRITING = st.sampled_from(["escaped", "raw", "cdata"])


def rss_document(items, how, extra=None):
    def attribute(value):
        return html.escape(value) if how == "escaped" else value

    converted = []
    for item in items:
        fields = {key: written(value, how) for key, value in item.items()}
        if "enclosure" in item:
            value = attribute(item["enclosure"])
            fields["enclosures"] = [(value, value[:20], value[-8:])]
        if "category" in item:
            fields["categories"] = [(written(item["category"], how), attribute(item["category"]))]
        converted.append(fields)
    return rss(converted)


def atom_document(items, how, extra=None):
    entries = "".join(
        "<entry>"
        f"<title type='html'>{written(item.get('title', ''), how)}</title>"
        f"<id>{written(item.get('guid', ''), how)}</id>"
        f'<link href="{html.escape(item.get("link", ""))}"/>'
        f"<updated>{written(item.get('pubDate', ''), how)}</updated>"
        f"<author><name>{written(item.get('author', ''), how)}</name></author>"
        f"<content type='html'>{written(item.get('description', ''), how)}</content>"
        f"<link rel='enclosure' href=\"{html.escape(item.get('enclosure', ''))}\" length='1'/>"
        f'<category term="{html.escape(item.get("category", ""))}"/>'
        "</entry>"
        for item in items
    )
    return (
        "<?xml version='1.0' encoding='utf-8'?><feed xmlns='http://www.w3.org/2005/Atom'>"
        f"<title>Atom</title><id>urn:x</id>{entries}</feed>"
    ).encode()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | field_text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)


def json_document(items, how, extra=None):
    mapping = {
        "title": "title",
        "link": "url",
        "description": "content_html",
        "pubDate": "date_published",
        "guid": "id",
        "author": "authors",
        "enclosure": "attachments",
        "category": "tags",
    }
    converted = [{mapping[key]: value for key, value in item.items()} for item in items]
    for item in converted:
        if "authors" in item:
            item["authors"] = [{"name": item["authors"]}]
        if "attachments" in item:
            item["attachments"] = [{"url": item["attachments"], "mime_type": "audio/mpeg"}]
        if "tags" in item:
            item["tags"] = [item["tags"]]
    if how == "raw":  # any JSON value where a string, list or object belongs
        key = ["title", "tags", "attachments", "authors", "date_published", "url"]
        converted = [dict(item, **{key[n % len(key)]: extra}) for n, item in enumerate(converted)]
    return json_feed(converted)


FORMATS = {"rss": rss_document, "atom": atom_document, "json": json_document}
CONTENT_TYPES = {
    "rss": "application/rss+xml",
    "atom": "application/atom+xml",
    "json": "application/feed+json",
}

# A mutation of the bytes: (where, as a fraction of the length, what, its argument).
MUTATIONS = st.lists(
    st.tuples(
        st.floats(0, 1),
        st.sampled_from(["cut", "repeat", "insert", "truncate"]),
        st.binary(max_size=8) | st.integers(1, 40),
    ),
    max_size=3,
)


def mutated(body, mutations):
    for where, what, arg in mutations:
        at = int(where * len(body))
        size = arg if isinstance(arg, int) else len(arg) or 1
        if what == "cut":
            body = body[:at] + body[at + size :]
        elif what == "repeat":
            body = body[:at] + body[at : at + size] * 2 + body[at + size :]
        elif what == "insert":
            body = body[:at] + (arg if isinstance(arg, bytes) else b"<" * arg) + body[at:]
        else:
            body = body[:at]
    return body


@pytest.fixture
def serve(feed_server):
    """Serve a document at a path of its own; its URL."""
    paths = itertools.count()

    def serve(body, content_type):
        return feed_server.serve(f"/fuzz-{next(paths)}.xml", body, content_type=content_type)

    return serve


def assert_stored_by_the_rules(feed):
    posts = list(feed.posts.all())
    # A title declared plain text keeps what looks like a tag as text ("Nice <gorilla>"):
    # the pages show it escaped, and nothing in it runs there.
    if markup_left(feed.title) or any(markup_left(post.title) for post in posts):
        page = Client().get(feed.get_absolute_url())
        assert page.status_code == 200
        assert injected(page.content.decode(), marker="xss-") == []
    for post in posts:
        assert not markup_left(post.author), post.author
        assert not injected(post.content, marker=""), post.content
        assert all(name.lower() in CONTENT_TAGS for name in TAG_NAME.findall(post.content))
        assert post.link == "" or post.link.lower().startswith(("http://", "https://"))
        for enclosure in post.enclosures.all():
            assert enclosure.url.lower().startswith(("http://", "https://")), enclosure.url


@given(
    kind=st.sampled_from(sorted(FORMATS)),
    items=ITEMS,
    how=WRITING,
    mutations=MUTATIONS,
    extra=JSON_VALUES,
)
# Found by fuzzing: escaped three times (twice here, once more as XML), the title was stored
# as "<i>twice</i>" (plain_text made two passes).
@example(
    kind="rss",
    items=[{"title": "&amp;lt;i&amp;gt;twice&amp;lt;/i&amp;gt;"}],
    how="escaped",
    mutations=[],
    extra=None,
)
@example(
    kind="atom",
    items=[{"description": SNIPPETS[3], "link": "http://xn--/"}],
    how="raw",
    mutations=[],
    extra=None,
)
@example(kind="json", items=[{"title": "x", "pubDate": "²"}], how="raw", mutations=[], extra=None)
# A JSON Feed title is plain text: "<script>…" is stored as written and shown escaped.
@example(kind="json", items=[{"title": SNIPPETS[0]}], how="escaped", mutations=[], extra=None)
# The text "javascript:" in a body is no link: a check that read it as one was wrong.
@example(
    kind="atom", items=[{"description": "javascript:"}], how="escaped", mutations=[], extra=None
)
@scaled(2)
def test_mutated_feeds_import_or_fail_readably_and_store_by_the_rules(
    serve, kind, items, how, mutations, extra
):
    """Imported (plain-text titles, sanitized content, web links) or failed with a readable
    reason: nothing raises past the importer."""
    body = mutated(FORMATS[kind](items, how, extra), mutations)
    url = serve(body, CONTENT_TYPES[kind])

    result = import_url(url)

    if result.run.outcome == Outcome.FAILED:
        assert readable(result.run.error), result.run.error
    else:
        assert result.run.outcome == Outcome.IMPORTED, result.run.error
    assert_stored_by_the_rules(Feed.objects.get(url=url))
