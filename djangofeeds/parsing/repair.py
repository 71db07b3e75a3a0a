"""Feed bytes made fit for the XML readers: no forbidden characters, entries cut, encoding right.

feedparser (and ``djangofeeds.parsing.fastrss``) read what ``prepare`` and ``tidy``
hand them; what the readers make of the document is ``readers``'.
"""

import codecs
import re

ENTRY_END = r"</(?:[\w.-]+:)?(?:item|entry)\s*>"
# Character references to what XML forbids (NUL, most controls, surrogates, past
# U+10FFFF): expat refuses the document over them and feedparser's fallback
# parser crashes on some, so they are dropped before parsing.
CHAR_REF = r"&#(?:x0*([0-9a-f]+)|0*([0-9]+));"
BAD_DECLARATION = rb"^(\s*<\?xml[^>]*?encoding\s*=\s*[\"'])(?:utf-?16|utf-?32|ucs-?[24])[^\"']*"


def prepare(body, limit):
    """The document as feedparser should see it.

    Drops NUL bytes and references to characters XML forbids, keeps only the
    first ``limit`` entries, and corrects a UTF-16 declaration on bytes that
    are not UTF-16 (feedparser would believe it and read garbage).
    """
    codec = utf16_codec(body)
    if codec:
        return tidy(body.decode(codec, "replace"), limit).encode(codec)
    body = re.sub(BAD_DECLARATION, rb"\1utf-8", body, count=1, flags=re.IGNORECASE)
    return tidy(mostly_utf8(body), limit)


def mostly_utf8(body):
    """UTF-8 with a few invalid bytes: those become U+FFFD.

    feedparser would read such a document as windows-1252 instead, garbling
    every other non-ASCII character in it.
    """
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        text = body.decode("utf-8", "replace")
        if len(re.findall("[^\x00-\x7f\ufffd]", text)) > text.count("\ufffd"):
            return text.encode("utf-8")
    return body


def utf16_codec(body):
    """The codec of a UTF-16 document (by its BOM or its first "<"), else None."""
    if body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if body.startswith(b"<\x00"):
        return "utf-16-le"
    if body.startswith(b"\x00<"):
        return "utf-16-be"
    return None


def tidy(document, limit):
    """``prepare`` on text or on ASCII-compatible bytes."""
    as_str = isinstance(document, str)

    def pattern(text):
        return re.compile(text if as_str else text.encode(), re.IGNORECASE)

    def drop_forbidden(match):
        digits, base = (match[1], 16) if match[1] is not None else (match[2], 10)
        code = int(digits or "0", base) if len(digits) <= 8 else -1
        allowed = code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF
        allowed = allowed or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF
        return match[0] if allowed else match[0][:0]

    nul = "\x00" if as_str else b"\x00"
    document = document.replace(nul, nul[:0])
    document = pattern(CHAR_REF).sub(drop_forbidden, document)
    ends = [match.end() for match in pattern(ENTRY_END).finditer(document)]
    if len(ends) > limit:
        # What follows the last entry closes the document (</channel></rss>, </feed>).
        document = document[: ends[limit - 1]] + document[ends[-1] :]
    return document
