"""``manage.py setup_schedules``: each installed app's beat schedule in django-celery-beat.

The command is the distribution's shared one (djangofeeds_blog_shared.schedules),
which blog's command of the same name is too: either app alone has it.
"""

from djangofeeds_blog_shared.schedules import Command

__all__ = ["Command"]
