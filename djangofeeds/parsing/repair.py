"""Feed bytes made fit for the XML readers: no forbidden characters, entries cut, encoding right.

feedparser (and ``djangofeeds.parsing.fastrss``) read what ``prepare`` and ``tidy``
hand them; what the readers make of the document is ``readers``'.
"""

import codecs
import re
from xml.etree import ElementTree
from xml.parsers import expat

from djangofeeds.parsing.feedparser_podcasts import USUAL_PREFIXES

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


# Two slips real feeds make that feedparser's lenient parser reads past, with a
# warning: whitespace before the XML declaration, and the iTunes or Podcasting 2.0
# prefix used without its declaration (26 of podcastparser's test feeds).
MISPLACED_DECLARATION = expat.errors.codes[expat.errors.XML_ERROR_MISPLACED_XML_PI]
UNBOUND_PREFIX = expat.errors.codes[expat.errors.XML_ERROR_UNBOUND_PREFIX]
USED_PREFIX = re.compile(rb"</?([A-Za-z_][\w.-]*):[A-Za-z_]")
DECLARED_PREFIX = re.compile(rb"\sxmlns:([A-Za-z_][\w.-]*)\s*=")
ROOT_RSS = re.compile(rb"<rss\b")


def mended_tree(document):
    """``(root, warning)``: the document's tree, and what feedparser's path warns of it.

    A well-formed document has no warning. One with a slip that ``mend`` knows
    is read mended, with the warning feedparser gives for its first error;
    any other error is raised (``ElementTree.ParseError``).
    """
    warning = ""
    for _ in range(2):  # at most one mend of each kind
        try:
            return ElementTree.fromstring(document), warning
        except ElementTree.ParseError as exc:
            mended = mend(document, exc.code)
            if mended is None:
                raise
            warning = warning or feedparser_warning(document, exc)
            document = mended
    return ElementTree.fromstring(document), warning


def mend(document, code):
    """The document with the slip of expat error ``code`` mended, or None."""
    if code == MISPLACED_DECLARATION and document[:1].isspace():
        stripped = document.lstrip()
        return stripped if stripped.startswith(b"<?xml") else None
    if code == UNBOUND_PREFIX:
        undeclared = {*USED_PREFIX.findall(document)} - {*DECLARED_PREFIX.findall(document)}
        undeclared.discard(b"xml")
        usual = {prefix.encode(): name for prefix, name in USUAL_PREFIXES.items()}
        root = ROOT_RSS.search(document)
        if not undeclared or not undeclared <= usual.keys() or root is None:
            return None
        names = b"".join(b' xmlns:%s="%s"' % (p, usual[p].encode()) for p in sorted(undeclared))
        return document[: root.end()] + names + document[root.end() :]
    return None


def feedparser_warning(document, exc):
    """The warning feedparser's path stores for ``exc``, expat's first error in ``document``.

    feedparser reads a copy whose XML declaration is its own: put in place of the
    document's, or before it on a line of its own (one line more).
    """
    line, column = exc.position
    declared = document.removeprefix(codecs.BOM_UTF8).startswith(b"<?xml")
    if declared and line == 1:
        raise exc  # its own declaration moved the column: not worked out here
    return f"<unknown>:{line + (not declared)}:{column}: {expat.errors.messages[exc.code]}"
