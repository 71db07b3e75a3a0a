"""djangofeeds: imports RSS, Atom and JSON feeds, one worker per feed at a time."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DjangofeedsConfig(AppConfig):
    name = "djangofeeds"
    verbose_name = _("Feeds")
    # The apps' migrations use 64-bit keys, whatever the host's DEFAULT_AUTO_FIELD.
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.db.models.signals import post_migrate, pre_delete

        # The checks register themselves; the tasks too, in every process, so that
        # one sent by name from a web process (with CELERY_TASK_ALWAYS_EAGER, say)
        # runs as the task it is, even where the host never autodiscovers tasks.
        from djangofeeds import checks, tasks  # noqa: F401
        from djangofeeds.push import subscriber
        from djangofeeds.republishing import hubs
        from djangofeeds.signals import feed_deactivated, posts_stored
        from djangofeeds.stories import grouping

        # WebSub: a feed deactivated or deleted is unsubscribed from its hub.
        feed_deactivated.connect(
            subscriber.feed_dropped, dispatch_uid="djangofeeds-websub-deactivated"
        )
        pre_delete.connect(
            subscriber.feed_dropped,
            sender=self.get_model("Feed"),
            dispatch_uid="djangofeeds-websub-delete",
        )
        # Stories: those a deleted feed's posts lead are shown from the next feed.
        pre_delete.connect(
            grouping.feed_deleted,
            sender=self.get_model("Feed"),
            dispatch_uid="djangofeeds-stories-feed-deleted",
        )
        # WebSub publishing: an import that stored posts pings the hubs (when configured).
        posts_stored.connect(hubs.posts_stored, dispatch_uid="djangofeeds-websub-publish")
        post_migrate.connect(repair_search_index, sender=self)


def repair_search_index(sender, using, **kwargs):
    """SQLite: put back the search triggers a migration's table rebuild dropped."""
    from django.db import connections

    from djangofeeds.search.schema import repair_sqlite

    if connections[using].vendor == "sqlite":
        repair_sqlite(connections[using])
