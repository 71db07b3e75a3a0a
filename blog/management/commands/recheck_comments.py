"""``manage.py recheck_comments``: send pending comments through the spam check again."""

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from blog import conf, moderation
from blog.dispatch import check_broker
from blog.models import Comment


class Command(BaseCommand):
    # A property: argparse wraps the description with re, which takes no lazy string.
    @property
    def help(self):
        return gettext("Re-dispatch the spam check of comments that have been pending too long.")

    def add_arguments(self, parser):
        group = parser.add_mutually_exclusive_group()
        group.add_argument(
            "--older-than",
            type=int,
            metavar="MINUTES",
            default=conf.BLOG_SPAM_RECHECK_AFTER_MINUTES,
            help=_(
                "only comments last dispatched more than MINUTES ago "
                "(default: BLOG_SPAM_RECHECK_AFTER_MINUTES, %(default)s)"
            ),
        )
        group.add_argument(
            "--all-pending", action="store_true", help=_("every pending comment, however recent")
        )

    def handle(self, *args, older_than, all_pending, verbosity, **options):
        if older_than < 0:
            raise CommandError(gettext("--older-than must be 0 or more minutes."))
        try:
            check_broker()  # say so now, not once per comment
        except Exception as exc:
            raise CommandError(
                gettext(
                    "Cannot reach the Celery broker (%(error)s): nothing sent. "
                    "Check CELERY_BROKER_URL and that the broker runs."
                )
                % {"error": type(exc).__name__}
            ) from exc
        if all_pending:
            comments = Comment.objects.pending()
        else:
            comments = moderation.stale_pending(older_than)
        comments = list(comments.order_by("pk"))
        if verbosity >= 2:
            for comment in comments:
                self.stdout.write(
                    "  "
                    + gettext("comment %(pk)s by %(name)s on %(entry)s")
                    % {"pk": comment.pk, "name": comment.name, "entry": comment.entry}
                )
        count = moderation.recheck(
            comments, detail="recheck_comments command", reason="recheck_queue"
        )
        pending = Comment.objects.pending().count()
        if verbosity >= 1:
            self.stdout.write(
                self.style.SUCCESS(
                    ngettext(
                        "Sent %(count)d pending comment for re-checking;",
                        "Sent %(count)d pending comments for re-checking;",
                        count,
                    )
                    % {"count": count}
                    + " "
                    + ngettext(
                        "%(count)d comment pending in all.",
                        "%(count)d comments pending in all.",
                        pending,
                    )
                    % {"count": pending}
                )
            )
