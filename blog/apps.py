"""The blog: entries, and comments checked for spam in the background."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BlogConfig(AppConfig):
    name = "blog"
    verbose_name = _("Blog")
    # The apps' migrations use 64-bit keys, whatever the host's DEFAULT_AUTO_FIELD.
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # The checks register themselves; the tasks too, in every process, so that
        # one sent by name from a web process (with CELERY_TASK_ALWAYS_EAGER, say)
        # runs as the task it is, even where the host never autodiscovers tasks.
        from blog import checks, tasks  # noqa: F401
