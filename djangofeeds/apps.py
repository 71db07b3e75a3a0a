"""djangofeeds: imports RSS, Atom and JSON feeds, one worker per feed at a time."""

from django.apps import AppConfig


class DjangofeedsConfig(AppConfig):
    name = "djangofeeds"
    verbose_name = "Feeds"
    # The apps' migrations use 64-bit keys, whatever the host's DEFAULT_AUTO_FIELD.
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.db.models.signals import post_migrate

        from djangofeeds import checks  # noqa: F401  (registers the system checks)

        post_migrate.connect(repair_search_index, sender=self)


def repair_search_index(sender, using, **kwargs):
    """SQLite: put back the search triggers a migration's table rebuild dropped."""
    from django.db import connections

    from djangofeeds.search_schema import repair_sqlite

    if connections[using].vendor == "sqlite":
        repair_sqlite(connections[using])
