"""Turn feed bytes into plain data: RSS 0.9x/1.0/2.0 and Atom 0.3/1.0, JSON Feed 1.0/1.1.

This module only chooses the reader. ``djangofeeds.parsing.feedparser_reader`` reads
every RSS and Atom dialect; UTF-8 RSS (2.0, 0.9x, with common namespaces) that
``djangofeeds.parsing.fastrss`` proves simple enough is read by it instead (same
output, several times faster), UTF-8 Atom 1.0 that ``djangofeeds.parsing.fastatom``
proves simple enough by it, and JSON Feed by ``djangofeeds.parsing.jsonfeed``.
All four give ``Draft`` entries (``djangofeeds.parsing.entries``): guids are
chosen, entries ordered and cut to the newest ``MAX_ENTRIES``, and only the kept
ones are converted (titles and authors to plain text, bodies to sanitized HTML).
"""

import codecs
import hashlib

from djangofeeds.parsing import fastatom, fastrss, feedparser_reader, jsonfeed
from djangofeeds.parsing.entries import NotAFeed

# What the importer, finder and WebSub import from here.
__all__ = ["NotAFeed", "body_hash", "parse"]

# Bumped whenever the readers store something different for the same bytes, so
# that every feed is read again once (its body hash no longer matches).
READER_REVISION = "2026-12-absolute-links-as-written"


def body_hash(body, *, url="", content_type=""):
    """What ``parse`` depends on, hashed: the bytes, the URL (relative links), the content type."""
    head = f"{READER_REVISION}\n{url}\n{content_type}\n"
    digest = hashlib.sha256(head.encode("utf-8", "surrogatepass"))
    digest.update(body)
    return digest.hexdigest()


def parse(body, *, url="", content_type=""):
    """Parse feed bytes; raise ``NotAFeed`` with a readable reason if they are no feed."""
    if not body.strip().removeprefix(codecs.BOM_UTF8).strip():
        raise NotAFeed("the server sent an empty body")
    if jsonfeed.is_json_feed(body, content_type):
        return jsonfeed.parse(body, url=url)
    fast = fastrss.parse(body, url=url, content_type=content_type)
    if fast is not None:
        return fast
    fast = fastatom.parse(body, url=url, content_type=content_type)
    if fast is not None:
        return fast
    return feedparser_reader.parse(body, url=url, content_type=content_type)
