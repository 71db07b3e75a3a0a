"""djangofeeds: imports RSS, Atom and JSON feeds, one worker per feed at a time."""

from django.apps import AppConfig


class DjangofeedsConfig(AppConfig):
    name = "djangofeeds"
    verbose_name = "Feeds"

    def ready(self):
        from djangofeeds import checks  # noqa: F401  (registers the system checks)
