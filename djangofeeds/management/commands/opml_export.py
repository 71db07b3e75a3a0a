"""``manage.py opml_export [-o FILE]``: write our feeds as an OPML subscription list."""

from django.core.management.base import BaseCommand, CommandError

from djangofeeds.models import Feed
from djangofeeds.opml import build_opml


class Command(BaseCommand):
    help = "Write every feed as OPML 2.0 (to standard output, or to FILE with -o)."

    def add_arguments(self, parser):
        parser.add_argument(
            "-o", "--output", metavar="FILE", help="write to FILE instead of standard output"
        )
        parser.add_argument("--active", action="store_true", help="only active feeds")

    def handle(self, output=None, active=False, **options):
        feeds = Feed.objects.active() if active else Feed.objects.all()
        document = build_opml(feeds.order_by("title", "url"))
        if output is None:
            self.stdout.write(document.decode("utf-8"), ending="\n")
            return
        try:
            with open(output, "wb") as handle:
                handle.write(document)
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc.strerror}") from exc
        if options["verbosity"] > 0:
            self.stderr.write(f"Wrote {feeds.count()} feeds to {output}")
