"""The blog: entries, and comments checked for spam in the background."""

from django.apps import AppConfig


class BlogConfig(AppConfig):
    name = "blog"
    verbose_name = "Blog"

    def ready(self):
        from blog import checks  # noqa: F401  (registers the system checks)
