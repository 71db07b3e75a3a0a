"""Helpers of the hostile-input matrix: run an import, check what it recorded, find XSS."""

import zlib
from html.parser import HTMLParser

from djangofeeds.models import ImportRun, Outcome
from tests.support.importing import import_url


def import_run(url):
    """Import ``url`` with the importer; return ``(result, its ImportRun as stored)``."""
    result = import_url(url)
    return result, ImportRun.objects.get(pk=result.run.pk)


def readable(error):
    """An error a person can act on: one short line, no traceback, no object reprs."""
    return bool(
        error
        and "\n" not in error
        and len(error) < 600
        and "Traceback" not in error
        and " object at 0x" not in error
    )


def refused(url, phrase, *, transient=False):
    """Import ``url``, which must fail with ``phrase`` in a readable error; return the run.

    ``transient``: whether the task would retry it soon (None: either).
    """
    result, run = import_run(url)
    assert run.outcome == Outcome.FAILED, run.error
    assert phrase in run.error and readable(run.error), run.error
    assert transient is None or result.transient is transient, run.error
    assert result.feed.last_error == run.error and result.feed.error_count == 1
    return run


class InjectionFinder(HTMLParser):
    """Markup that would run script: script elements, on* handlers, javascript: URLs."""

    URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data"}

    def __init__(self, marker):
        super().__init__()
        self.marker = marker
        self.found = []
        self.in_script = False

    def handle_starttag(self, tag, attrs):
        self.in_script = tag == "script"
        for name, value in attrs:
            value = (value or "").strip().lower()
            if name.startswith("on") and self.marker in value:
                self.found.append(f"<{tag} {name}={value!r}>")
            if name in self.URL_ATTRIBUTES and value.startswith(("javascript:", "vbscript:")):
                self.found.append(f"<{tag} {name}={value!r}>")

    def handle_endtag(self, tag):
        self.in_script = False

    def handle_data(self, data):
        if self.in_script and self.marker in data:
            self.found.append(f"<script>{data[:80]}")


def injected(html, marker="xss-"):
    """What in ``html`` would run an attacker's script (payloads carry ``marker``)."""
    finder = InjectionFinder(marker)
    finder.feed(html)
    finder.close()
    return finder.found


def with_doctype(body, doctype):
    """An XML document with a DOCTYPE (entity declarations) after its declaration."""
    return body.replace(b"?>", b"?>" + doctype.encode(), 1)


def bomb(encoding, megabytes):
    """``megabytes`` MB of spaces after "<rss>", compressed (about 1000:1)."""
    wbits = 16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    chunk = b" " * (1024 * 1024)
    parts = [compressor.compress(b"<rss>")]
    parts += [compressor.compress(chunk) for _ in range(megabytes)]
    return b"".join([*parts, compressor.flush()])


# Nine levels of ten: "&lol9;" would expand to a billion "lol"s.
LAUGHS = (
    '<!DOCTYPE rss [<!ENTITY lol0 "lol">'
    + "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10))
    + "]>"
)
