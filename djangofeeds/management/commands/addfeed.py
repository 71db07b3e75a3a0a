"""``manage.py addfeed URL... [--all] [--import] [--no-discover]``: subscribe to feeds."""

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils.text import Truncator
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from djangofeeds.discovery import finder
from djangofeeds.discovery.finder import Discovery, DiscoveryError
from djangofeeds.importing.importer import EarlierFetch
from djangofeeds.models import Feed, InvalidFeedURL


class Command(BaseCommand):
    # A property: argparse wraps the description with re, which takes no lazy string.
    @property
    def help(self):
        return gettext(
            "Subscribe to feeds by URL, or by the URL of a page that links to them; "
            "with --import, import them right away (in this process)."
        )

    def add_arguments(self, parser):
        parser.add_argument("urls", nargs="+", metavar="URL")
        parser.add_argument(
            "--import",
            dest="import_now",
            action="store_true",
            help=_("import the feeds now, under their locks"),
        )
        parser.add_argument(
            "--all",
            dest="every",
            action="store_true",
            help=_("a page that links to several feeds: add them all (default: the first)"),
        )
        parser.add_argument(
            "--no-discover",
            dest="discover",
            action="store_false",
            help=_("store the URLs as given, without fetching them to find their feeds"),
        )

    def handle(self, *, urls, import_now=False, every=False, discover=True, **options):
        feeds, invalid, earlier_fetches = [], 0, {}
        for url in urls:
            try:
                found = finder.find(url) if discover else Discovery.as_given(url.strip())
                for link in found.feeds if every else found.feeds[:1]:
                    feed, created = Feed.objects.subscribe(link.url)
                    feeds.append(feed.url)
                    self.report(feed, created, found)
                    fetched_here = found.fetched is not None and link.url == found.url
                    if import_now and created and fetched_here:
                        # The feed was fetched and read to find it: imported from that
                        # (kept only for an import: many URLs' documents are not held).
                        earlier_fetches[feed.url] = EarlierFetch(
                            found.fetched, found.parsed, found.fetch_ms
                        )
            except DiscoveryError as exc:  # its message names the URL or page
                self.stderr.write(self.style.ERROR(str(exc)))
                invalid += 1
                continue
            except InvalidFeedURL as exc:
                self.stderr.write(self.style.ERROR(f"{Truncator(url).chars(100)}: {exc}"))
                invalid += 1
                continue
            if not every and len(found.feeds) > 1:
                self.stdout.write(
                    gettext("%(page)s also links to (add them with --all):") % {"page": found.page}
                )
                for link in found.feeds[1:]:
                    self.stdout.write(f"  {link.url}  {link.label}")
        if import_now and feeds:
            call_command(
                "import_feeds",
                *feeds,
                sync=True,
                earlier_fetches=earlier_fetches,
                verbosity=options["verbosity"],
                stdout=self.stdout,
                stderr=self.stderr,
            )
        if invalid:
            raise CommandError(
                ngettext(
                    "%(invalid)d of %(count)d URLs were not added",
                    "%(invalid)d of %(count)d URLs were not added",
                    invalid,
                )
                % {"invalid": invalid, "count": len(urls)}
            )

    def report(self, feed, created, found):
        where = " " + gettext("(found on %(page)s)") % {"page": found.page} if found.page else ""
        if created:
            self.stdout.write(
                self.style.SUCCESS(gettext("Added %(url)s") % {"url": feed.url} + where)
            )
        else:
            self.stdout.write(gettext("Already subscribed: %(url)s") % {"url": feed.url} + where)
        if found.unchecked:
            self.stdout.write(self.style.WARNING(found.unchecked_note()))
