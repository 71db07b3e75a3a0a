"""Feed text made safe to store and show: sanitized HTML, plain text, web links.

Bodies pass an allowlist sanitizer (nh3) after feedparser's own; titles and
authors become plain text; links must be http(s). Every reader (feedparser,
``djangofeeds.parsing.fastrss``, ``djangofeeds.parsing.jsonfeed``) converts through here.
"""

import contextvars
import html
import re
from urllib.parse import urljoin

import nh3
from django.utils.html import escape, linebreaks

# The second, allowlist sanitizer after feedparser's (which keeps javascript:
# links inside <svg> and <math>, and forms): what an article needs, nothing
# that runs, submits or draws.
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


def web_link(url):
    """An http(s) link of sane length, or "" (no javascript: or data: links on our pages)."""
    url = clean(url)
    return url if url.lower().startswith(("http://", "https://")) and len(url) <= 2000 else ""


IMG_TAG = re.compile(r"<img\b")
IMG_PRIVACY = '<img loading="lazy" referrerpolicy="no-referrer"'


# The base URL of the markup being cleaned, for the cleaner's attribute filter.
_BASE = contextvars.ContextVar("djangofeeds_sanitize_base", default="")


def _resolve(tag, attribute, value):
    if attribute not in ("href", "src"):
        return value
    try:
        return urljoin(_BASE.get(), value)
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
RESOLVING_CLEANER = _content_cleaner(attribute_filter=_resolve)
TEXT_CLEANER = nh3.Cleaner(tags=set())


def safe_html(markup, base=""):
    """``markup`` cut down to the allowlists above: safe tags and attributes, http(s)/mailto links.

    With a ``base`` URL, relative links and image sources are made absolute
    (feedparser does that itself; the other readers ask for it here).
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
