"""djangofeeds: imports RSS, Atom and JSON feeds, one worker per feed at a time."""

from django.apps import AppConfig


class DjangofeedsConfig(AppConfig):
    name = "djangofeeds"
    verbose_name = "Feeds"
    # The apps' migrations use 64-bit keys, whatever the host's DEFAULT_AUTO_FIELD.
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from djangofeeds import checks  # noqa: F401  (registers the system checks)
