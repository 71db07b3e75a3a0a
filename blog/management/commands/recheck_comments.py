"""``manage.py recheck_comments``: send pending comments through the spam check again."""

from django.core.management.base import BaseCommand, CommandError

from blog import conf, moderation
from blog.dispatch import check_broker
from blog.models import Comment


class Command(BaseCommand):
    help = "Re-dispatch the spam check of comments that have been pending too long."

    def add_arguments(self, parser):
        group = parser.add_mutually_exclusive_group()
        group.add_argument(
            "--older-than",
            type=int,
            metavar="MINUTES",
            default=conf.BLOG_SPAM_RECHECK_AFTER_MINUTES,
            help="only comments last dispatched more than MINUTES ago "
            "(default: BLOG_SPAM_RECHECK_AFTER_MINUTES, %(default)s)",
        )
        group.add_argument(
            "--all-pending", action="store_true", help="every pending comment, however recent"
        )

    def handle(self, *args, older_than, all_pending, verbosity, **options):
        if older_than < 0:
            raise CommandError("--older-than must be 0 or more minutes.")
        try:
            check_broker()  # say so now, not once per comment
        except Exception as exc:
            raise CommandError(
                f"Cannot reach the Celery broker ({type(exc).__name__}): nothing sent. "
                "Check CELERY_BROKER_URL and that the broker runs."
            ) from exc
        if all_pending:
            comments = Comment.objects.pending()
        else:
            comments = moderation.stale_pending(older_than)
        comments = list(comments.order_by("pk"))
        if verbosity >= 2:
            for comment in comments:
                self.stdout.write(f"  comment {comment.pk} by {comment.name} on {comment.entry}")
        count = moderation.recheck(comments, detail="recheck_comments command")
        pending = Comment.objects.pending().count()
        if verbosity >= 1:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Sent {count} pending comment(s) for re-checking; "
                    f"{pending} comment(s) pending in all."
                )
            )
