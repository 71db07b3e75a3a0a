"""``manage.py opml_export [-o FILE]``: write our feeds as an OPML subscription list."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from djangofeeds.discovery.opml import build_opml
from djangofeeds.models import Feed


class Command(BaseCommand):
    # A property: argparse wraps the description with re, which takes no lazy string.
    @property
    def help(self):
        return gettext("Write every feed as OPML 2.0 (to standard output, or to FILE with -o).")

    def add_arguments(self, parser):
        parser.add_argument(
            "-o", "--output", metavar="FILE", help=_("write to FILE instead of standard output")
        )
        parser.add_argument("--active", action="store_true", help=_("only active feeds"))

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
            raise CommandError(
                gettext("cannot write %(file)s: %(error)s")
                % {"file": output, "error": exc.strerror}
            ) from exc
        if options["verbosity"] > 0:
            count = feeds.count()
            self.stderr.write(
                ngettext(
                    "Wrote %(count)d feed to %(file)s", "Wrote %(count)d feeds to %(file)s", count
                )
                % {"count": count, "file": output}
            )
