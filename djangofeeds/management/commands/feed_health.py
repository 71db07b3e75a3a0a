"""``manage.py feed_health [--state STATE] [--digest]``: the feeds per health state, the feeds
that need a look and why; ``--digest`` mails the weekly digest now."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from djangofeeds.health.digest import send_digest, state_counts
from djangofeeds.models import Feed, Health

LISTED = 50


class Command(BaseCommand):
    # A property: argparse wraps the description with re, which takes no lazy string.
    @property
    def help(self):
        return gettext(
            "Show how many feeds are in each health state and list those that need a look "
            "(failing, dead, moved, gone, silent), with the reason."
        )

    def add_arguments(self, parser):
        parser.add_argument(
            "--state",
            choices=[state.value for state in Health],
            help=_("list the feeds in this state only"),
        )
        parser.add_argument(
            "--digest", action="store_true", help=_("also mail the weekly digest now")
        )

    def handle(self, state=None, digest=False, **options):
        counts = state_counts()
        self.stdout.write(", ".join(f"{label}: {count}" for _, label, count in counts))
        listed = [state] if state else [value for value, _, _ in counts if value != Health.OK]
        for value in listed:
            feeds = Feed.objects.filter(health=value).order_by("health_changed_at", "pk")
            for feed in feeds[:LISTED]:
                why = (
                    feed.last_error or feed.health_changes.values_list("reason", flat=True).first()
                )
                self.stdout.write(f"{value:8} {feed.url}  {why or ''}".rstrip())
        if digest:
            try:
                mailed = send_digest()
            except OSError as exc:  # the mail server: a line, not a traceback
                error = gettext("could not send the digest: %(error)s") % {"error": exc}
                raise CommandError(error) from exc
            if mailed:
                said = ngettext(
                    "Digest: %(count)d change mailed.", "Digest: %(count)d changes mailed.", mailed
                ) % {"count": mailed}
            else:
                said = gettext("Digest: nothing to mail (no change this week, or no recipient).")
            self.stderr.write(said)
