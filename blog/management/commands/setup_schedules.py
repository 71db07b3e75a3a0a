"""``manage.py setup_schedules``: the same command as djangofeeds' (one file serves both).

It reads each installed app's ``schedules.BEAT_SCHEDULE``, so a host with blog
alone has it too: the module is imported from the djangofeeds package, which the
same distribution ships, whether or not djangofeeds is in ``INSTALLED_APPS``.
"""

from djangofeeds.management.commands.setup_schedules import Command

__all__ = ["Command"]
