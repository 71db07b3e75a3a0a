"""``manage.py opml_import FILE``: subscribe to every feed in an OPML file."""

import sys

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, transaction
from django.utils.text import Truncator
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from djangofeeds.discovery import finder
from djangofeeds.discovery.opml import OPMLError, parse_opml
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
        added = skipped = 0
        invalid = []  # (url, reason): every refused row is named in the summary
        seen = set()
        for outline in outlines:
            if outline.url in seen:
                skipped += 1
                continue
            seen.add(outline.url)
            try:
                # A savepoint per row: a row the database refuses must not spoil the
                # transaction for the rows after it (PostgreSQL aborts it otherwise).
                # A row may name a page: the feed it links to is stored (discovery.finder).
                with transaction.atomic():
                    subscribe = finder.subscribe if discover else Feed.objects.subscribe
                    feed, created = subscribe(
                        outline.url, title=outline.title, link=outline.html_url
                    )
            except InvalidFeedURL as exc:
                invalid.append((outline.url, str(exc)))
                continue
            except DatabaseError as exc:
                # The rest of the file still counts: a row the database refuses is reported.
                why = gettext("the database refused it (%(error)s)")
                invalid.append((outline.url, why % {"error": type(exc).__name__}))
                continue
            if created:
                added += 1
                if options["verbosity"] > 1:
                    found_on = (
                        " " + gettext("(found on %(page)s)") % {"page": outline.url}
                        if feed.url != outline.url
                        else ""
                    )
                    self.stdout.write(gettext("added: %(url)s") % {"url": feed.url} + found_on)
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
