"""``manage.py opml_import FILE``: subscribe to every feed in an OPML file."""

import sys

from django.core.management.base import BaseCommand, CommandError

from djangofeeds.models import Feed, InvalidFeedURL
from djangofeeds.opml import OPMLError, parse_opml


class Command(BaseCommand):
    help = "Subscribe to the feeds of an OPML file (nested folders included; known feeds skipped)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="an OPML file, or - for standard input")

    def handle(self, file, **options):
        try:
            outlines = parse_opml(self.read(file))
        except OPMLError as exc:
            raise CommandError(str(exc)) from exc
        added = skipped = invalid = 0
        seen = set()
        for outline in outlines:
            if outline.url in seen:
                skipped += 1
                continue
            seen.add(outline.url)
            try:
                _, created = Feed.objects.subscribe(
                    outline.url, title=outline.title, link=outline.html_url
                )
            except InvalidFeedURL as exc:
                invalid += 1
                self.stderr.write(self.style.WARNING(f"invalid: {outline.url or '(empty)'}: {exc}"))
                continue
            if created:
                added += 1
                if options["verbosity"] > 1:
                    self.stdout.write(f"added: {outline.url}")
            else:
                skipped += 1
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(outlines)} feeds in the file: "
                f"{added} added, {skipped} skipped, {invalid} invalid"
            )
        )

    def read(self, file):
        try:
            if file == "-":
                return sys.stdin.buffer.read()
            with open(file, "rb") as handle:
                return handle.read()
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror}") from exc
