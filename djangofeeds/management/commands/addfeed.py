"""``manage.py addfeed URL... [--import]``: subscribe to feeds."""

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils.text import Truncator

from djangofeeds.models import Feed, InvalidFeedURL


class Command(BaseCommand):
    help = "Subscribe to feeds by URL; with --import, import them right away (in this process)."

    def add_arguments(self, parser):
        parser.add_argument("urls", nargs="+", metavar="URL")
        parser.add_argument(
            "--import",
            dest="import_now",
            action="store_true",
            help="import the feeds now, under their locks",
        )

    def handle(self, *, urls, import_now=False, **options):
        feeds, invalid = [], 0
        for url in urls:
            try:
                feed, created = Feed.objects.subscribe(url)
            except InvalidFeedURL as exc:
                self.stderr.write(self.style.ERROR(f"{Truncator(url).chars(100)}: {exc}"))
                invalid += 1
                continue
            feeds.append(feed.url)
            if created:
                self.stdout.write(self.style.SUCCESS(f"Added {feed.url}"))
            else:
                self.stdout.write(f"Already subscribed: {feed.url}")
        if import_now and feeds:
            call_command(
                "import_feeds",
                *feeds,
                sync=True,
                verbosity=options["verbosity"],
                stdout=self.stdout,
                stderr=self.stderr,
            )
        if invalid:
            raise CommandError(f"{invalid} of {len(urls)} URLs were not added")
