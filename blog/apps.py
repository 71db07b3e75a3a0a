"""The blog: entries, and comments checked for spam in the background."""

from django.apps import AppConfig


class BlogConfig(AppConfig):
    name = "blog"
    verbose_name = "Blog"
    # The apps' migrations use 64-bit keys, whatever the host's DEFAULT_AUTO_FIELD.
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from blog import checks  # noqa: F401  (registers the system checks)
