"""Search results shown with the query's words marked: escaped text, ``<mark>`` built here.

A post's content is sanitized HTML; cutting it around a match would break its
markup. Results show a plain-text excerpt instead: the content's text, escaped,
with ``<mark>`` around the words that match. Neither the post nor the query can
add markup of its own.
"""

import re
from html.parser import HTMLParser

from django.utils.html import escape
from django.utils.safestring import mark_safe

from djangofeeds.search import query_words

EXCERPT_CHARS = 300
# Characters of text kept before the first match, so it is read in context.
LEAD_CHARS = 80
# A huge post is read this far for its excerpt.
MAX_SCANNED_CHARS = 200_000
# Suffixes dropped from a query word, so "running" also marks "runner" (the
# databases stem words; this only approximates which ones they matched).
SUFFIXES = re.compile(r"(?:ing|ed|es|s)$")
# Elements whose text is no reading matter.
SKIPPED = {"script", "style", "template"}


class TextExtractor(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skipping = [], 0

    def handle_starttag(self, tag, attrs):
        self.skipping += tag in SKIPPED
        self.parts.append(" ")  # <p>a</p><p>b</p> is two words

    def handle_endtag(self, tag):
        if tag in SKIPPED and self.skipping:
            self.skipping -= 1
        self.parts.append(" ")

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def plain_text(html):
    """The text of an HTML fragment, entities decoded, white space collapsed."""
    extractor = TextExtractor()
    extractor.feed(html[:MAX_SCANNED_CHARS])
    extractor.close()
    return " ".join("".join(extractor.parts).split())


def word_pattern(query):
    """A regex of the words of ``query`` (and their stems) at the start of a word, or None."""
    stems = set()
    for word in query_words(query):
        stem = SUFFIXES.sub("", word)
        stems.add(stem if len(stem) >= 3 else word)
    if not stems:
        return None
    alternatives = "|".join(re.escape(stem) for stem in sorted(stems, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\w*", re.IGNORECASE)


def marked(text, pattern):
    """``text`` escaped, with ``<mark>`` around each match of ``pattern``."""
    if pattern is None:
        return escape(text)
    out, end = [], 0
    for match in pattern.finditer(text):
        out += [escape(text[end : match.start()]), "<mark>", escape(match.group()), "</mark>"]
        end = match.end()
    out.append(escape(text[end:]))
    return mark_safe("".join(out))


def highlight(text, query):
    """Plain ``text`` (a title) escaped, with the query's words marked."""
    return marked(text or "", word_pattern(query))


def excerpt(html, query, length=EXCERPT_CHARS):
    """About ``length`` characters of ``html``'s text around its first match, words marked."""
    text = plain_text(html or "")
    pattern = word_pattern(query)
    first = pattern.search(text) if pattern else None
    start = 0
    if first and first.start() > LEAD_CHARS:
        start = text.rfind(" ", 0, first.start() - LEAD_CHARS) + 1  # at a word
    cut = text[start : start + length]
    if start + length < len(text):
        cut = cut.rsplit(" ", 1)[0] if " " in cut else cut
    shown = marked(cut, pattern)
    before = "… " if start else ""
    after = " …" if start + len(cut) < len(text) else ""
    return mark_safe(f"{before}{shown}{after}")
