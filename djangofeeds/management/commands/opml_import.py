"""``manage.py opml_import FILE``: subscribe to every feed in an OPML file."""

import sys

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, transaction
from django.utils.text import Truncator
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from djangofeeds.discovery.finder import Discovery
from djangofeeds.discovery.opml import OPMLError, parse_opml
from djangofeeds.discovery.row_checks import RowCheck, check_rows, record_unchecked
from djangofeeds.models import Feed, InvalidFeedURL


class Command(BaseCommand):
    # A property: argparse wraps the description with re, which takes no lazy string.
    @property
    def help(self):
        return gettext(
            "Subscribe to the feeds of an OPML file (nested folders included; known feeds "
            "skipped; a row that names a page gets the page's feed)."
        )

    def add_arguments(self, parser):
        parser.add_argument("file", help=_("an OPML file, or - for standard input"))
        parser.add_argument(
            "--no-discover",
            dest="discover",
            action="store_false",
            help=_("store the URLs as written, without fetching each one to find its feed"),
        )

    def handle(self, file, discover=True, **options):
        try:
            outlines = parse_opml(self.read(file))
        except OPMLError as exc:
            raise CommandError(str(exc)) from exc
        added = 0
        invalid = []  # (url, reason): every refused row is named in the summary
        first = {}  # each URL's first row: the same URL again is skipped
        for outline in outlines:
            first.setdefault(outline.url, outline)
        skipped = len(outlines) - len(first)
        # A row may name a page: the feed it links to is stored (discovery.row_checks).
        if discover:
            checks = self.checks(list(first))
        else:
            checks = (RowCheck(Discovery.as_given(url)) for url in first)
        for outline, check in zip(first.values(), checks, strict=True):
            url = outline.url
            if check.refused:
                invalid.append((url, check.refused))
                continue
            try:
                # A savepoint per row: a row the database refuses must not spoil the
                # transaction for the rows after it (PostgreSQL aborts it otherwise).
                with transaction.atomic():
                    feed, created = Feed.objects.subscribe(
                        check.found.feeds[0].url, title=outline.title, link=outline.html_url
                    )
                    if created and check.found.unchecked_error is not None:
                        record_unchecked(feed, check.found.unchecked_error)
            except InvalidFeedURL as exc:
                invalid.append((url, str(exc)))
                continue
            except DatabaseError as exc:
                # The rest of the file still counts: a row the database refuses is reported.
                why = gettext("the database refused it (%(error)s)")
                invalid.append((url, why % {"error": type(exc).__name__}))
                continue
            if created:
                added += 1
                if options["verbosity"] > 1:
                    self.report_added(feed, check.found)
            else:
                skipped += 1
        summary = ngettext(
            "%(count)d feeds in the file: "
            "%(added)d added, %(skipped)d skipped, %(invalid)d invalid",
            "%(count)d feeds in the file: "
            "%(added)d added, %(skipped)d skipped, %(invalid)d invalid",
            len(outlines),
        ) % {"count": len(outlines), "added": added, "skipped": skipped, "invalid": len(invalid)}
        self.stdout.write(self.style.SUCCESS(summary + (":" if invalid else "")))
        for url, reason in invalid:
            self.stdout.write(
                self.style.WARNING(
                    "  "
                    + gettext("invalid: %(url)s: %(why)s")
                    % {"url": Truncator(url).chars(100) or gettext("(empty)"), "why": reason}
                )
            )

    def checks(self, urls):
        """A ``RowCheck`` per URL, in order: the known ones as they are, the others fetched."""
        known = set()
        for start in range(0, len(urls), 500):  # bounded IN lists, on every database
            chunk = urls[start : start + 500]
            known.update(Feed.objects.filter(url__in=chunk).values_list("url", flat=True))
        fetched = check_rows([url for url in urls if url not in known])
        for url in urls:
            yield RowCheck(Discovery.as_given(url)) if url in known else next(fetched)

    def report_added(self, feed, found):
        """The progress line of a row added (``--verbosity 2``), and why it was not checked."""
        found_on = (
            " " + gettext("(found on %(page)s)") % {"page": found.url}
            if feed.url != found.url
            else ""
        )
        self.stdout.write(gettext("added: %(url)s") % {"url": feed.url} + found_on)
        if found.unchecked:
            self.stdout.write(self.style.WARNING(found.unchecked_note()))

    def read(self, file):
        try:
            if file == "-":
                return sys.stdin.buffer.read()
            with open(file, "rb") as handle:
                return handle.read()
        except OSError as exc:
            raise CommandError(
                gettext("cannot read %(file)s: %(error)s") % {"file": file, "error": exc.strerror}
            ) from exc
