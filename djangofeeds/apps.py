"""djangofeeds: imports RSS and Atom feeds, one worker per feed at a time."""

from django.apps import AppConfig


class DjangofeedsConfig(AppConfig):
    name = "djangofeeds"
    verbose_name = "Feeds"
