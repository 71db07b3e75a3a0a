"""Feed text made safe to store and show: sanitized HTML, plain text, web links.

Bodies pass one allowlist sanitizer (nh3, which parses HTML as browsers do),
their relative links resolved here; titles and authors become plain text; links
must be http(s). Every reader (feedparser,
``djangofeeds.parsing.fastrss``, ``djangofeeds.parsing.jsonfeed``) converts through here.
"""

import contextvars
import html
import re
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urljoin

import nh3
from django.utils.html import escape, linebreaks

# The allowlist sanitizer of every reader (feedparser's own sanitizer is off: it
# kept javascript: links inside <svg> and <math>, and forms, and cost, with its
# link resolution, 70% of feedparser's parse of real feeds): what an article
# needs, nothing that runs, submits or draws.
CONTENT_TAGS = {
    *("p", "br", "hr", "div", "span", "blockquote", "q", "cite", "figure", "figcaption"),
    *("a", "em", "strong", "b", "i", "u", "s", "small", "sub", "sup", "abbr", "del", "ins"),
    *("code", "pre", "kbd", "samp", "time", "img"),
    *("ul", "ol", "li", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6"),
    *("table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td"),
}
CONTENT_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
    "abbr": {"title"},
    "time": {"datetime"},
}
CONTENT_URL_SCHEMES = {"http", "https", "mailto"}


# Lone surrogates cannot be encoded for the database; NUL is refused by PostgreSQL.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def clean(text, limit=None):
    """Text as the database accepts it: no NUL bytes or lone surrogates, bounded."""
    text = UNSTORABLE.sub("", text or "").strip()
    return text[:limit] if limit else text


TAG_START = re.compile(r"<[a-zA-Z/!?]")


# Found by fuzzing (issue 25): a title escaped three times kept its tags after two passes.
PLAIN_TEXT_PASSES = 4
MARKUP_OPENER = re.compile(r"[<&]")


def markup_left(text):
    """Whether ``text`` still holds a tag or an entity (a feed that escaped its HTML twice)."""
    return bool(TAG_START.search(text)) or ("&" in text and html.unescape(text) != text)


def plain_text(value, limit=None):
    """``value`` (HTML or text, whatever the feed declared) as plain text.

    Tags stripped (with the contents of script and style), entities decoded,
    whitespace collapsed. A value escaped several times gets a pass per
    escaping, up to ``PLAIN_TEXT_PASSES``; past that (a feed escaping its
    titles that often is playing games) the tag and entity openers left go.
    """
    text = clean(value)
    for _ in range(PLAIN_TEXT_PASSES):
        if "<" not in text and "&" not in text:
            break
        text = html.unescape(TEXT_CLEANER.clean(text))
        if not markup_left(text):
            break
    else:
        if markup_left(text):
            text = MARKUP_OPENER.sub("", text)
    return clean(" ".join(text.split()), limit)


def literal_text(value, limit=None):
    """``value`` declared plain text (an Atom ``type="text"``, a JSON Feed title, an RSS
    title without HTML): kept as written, whitespace collapsed. "Nice <gorilla>"
    stays so, and is escaped wherever it is shown."""
    return clean(" ".join(clean(value).split()), limit)


def title_text(value, *, declared_text, limit=None):
    """A title as stored: as written when ``declared_text`` (``literal_text``), else HTML
    made plain text (``plain_text``)."""
    convert = literal_text if declared_text else plain_text
    return convert(value, limit)


def web_link(url):
    """An http(s) link of sane length, or "" (no javascript: or data: links on our pages)."""
    url = clean(url)
    return url if url.lower().startswith(("http://", "https://")) and len(url) <= 2000 else ""


IMG_TAG = re.compile(r"<img\b")
IMG_PRIVACY = '<img loading="lazy" referrerpolicy="no-referrer"'


# The base URL of the markup being cleaned, for the cleaner's attribute filter.
_BASE = contextvars.ContextVar("djangofeeds_sanitize_base", default="")


def _resolve(url):
    """A relative ``href`` or ``src`` made absolute against the markup's base.

    nh3 calls it for relative URLs only (an absolute one it passes through, or
    drops for its scheme): an attribute filter, called for every attribute,
    cost a 681 KiB real feed a third of its cleaning time (bench/run.py real_feeds).
    """
    url = url.strip(" \t\n\r\f")  # read without surrounding whitespace, as browsers do
    try:
        return urljoin(_BASE.get(), url)
    except ValueError:  # e.g. "http://[oops/": no link is better than a crash
        return None


def _content_cleaner(**options):
    return nh3.Cleaner(
        tags=CONTENT_TAGS,
        attributes=CONTENT_ATTRIBUTES,
        url_schemes=CONTENT_URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        **options,
    )


# Built once: nh3.clean() builds its allowlists anew on every call, which cost a
# 50-item first import about 1 ms in the worker (a Cleaner cleans 4x faster).
CONTENT_CLEANER = _content_cleaner()
RESOLVING_CLEANER = _content_cleaner(url_relative=_resolve)
TEXT_CLEANER = nh3.Cleaner(tags=set())


def safe_html(markup, base=""):
    """``markup`` cut down to the allowlists above: safe tags and attributes, http(s)/mailto links.

    With a ``base`` URL, relative links and image sources are made absolute
    (the entry's base: its ``xml:base``, else the document's URL).
    """
    if base:
        token = _BASE.set(base)
        try:
            cleaned = RESOLVING_CLEANER.clean(markup)
        finally:
            _BASE.reset(token)
    else:
        cleaned = CONTENT_CLEANER.clean(markup)
    # Images load lazily and tell their host nothing of the reader. Added here,
    # not by nh3's set_tag_attribute_values, which writes them in a random order:
    # the same entry would change checksum, and be rewritten, on every import.
    # In nh3's output "<img" can only start a tag (text has its "<" escaped).
    return IMG_TAG.sub(IMG_PRIVACY, cleaned)


def text_html(text):
    """Plain text as safe HTML: escaped, paragraphs and line breaks kept."""
    return linebreaks(escape(text))


# Bodies this long in all (characters) are cleaned on CONTENT_THREADS threads.
PARALLEL_CONTENT_BYTES = 128 * 1024
CONTENT_THREADS = 2


def clean_ahead(drafts):
    """Clean the bodies of ``drafts`` (``entries.Draft``) ahead, on threads, when large in all.

    nh3 releases the GIL while it cleans: a 681 KiB real feed's ten bodies take
    about 60% as long on two threads (bench/run.py real_feeds). Small feeds are
    not worth the threads. Not through the ``content`` property: on Python 3.11
    a cached_property holds one lock for every instance of its class.
    """
    if sum(draft.content_size for draft in drafts) < PARALLEL_CONTENT_BYTES:
        return
    pending = [draft for draft in drafts if "content" not in draft.__dict__]
    pending.sort(key=lambda draft: draft.content_size, reverse=True)  # the largest first
    pool = ThreadPoolExecutor(CONTENT_THREADS, thread_name_prefix="djangofeeds-sanitize")
    try:
        for draft, content in zip(pending, pool.map(read_content, pending), strict=True):
            draft.__dict__["content"] = content
    finally:
        # A time limit raised here stops the bodies not yet begun.
        pool.shutdown(cancel_futures=True)


def read_content(draft):
    return draft.read_content()
