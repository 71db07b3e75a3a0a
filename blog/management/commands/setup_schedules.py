"""``manage.py setup_schedules``: each installed app's beat schedule in django-celery-beat.

The command is the distribution's shared one (djangofeeds_blog_shared.schedules),
which djangofeeds' command of the same name is too: a host with blog alone has it,
and nothing of djangofeeds is imported.
"""

from djangofeeds_blog_shared.schedules import Command

__all__ = ["Command"]
