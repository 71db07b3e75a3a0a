"""``manage.py setup_schedules``: the apps' periodic tasks as django-celery-beat entries.

Each installed app's ``schedules.BEAT_SCHEDULE`` (djangofeeds, blog), found through
the app registry (no app is imported by name), becomes one editable ``PeriodicTask``,
created only if no entry has its name: running it again creates nothing, and an
operator's edits (interval, expiry, enabled) are kept; ``--reset`` puts the app's
defaults back. Each app's ``management/commands/setup_schedules.py`` is this
``Command``, so a host with either app alone has the command.

Its texts are translated by the installed apps' catalogues (djangofeeds' has them):
this package is not an app and has no catalogue of its own.
"""

import json
from datetime import timedelta
from importlib import import_module

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils.module_loading import module_has_submodule
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

# IntervalSchedule's periods, largest first: 3600 s shows as "every hour".
PERIODS = [("days", 86400), ("hours", 3600), ("minutes", 60), ("seconds", 1)]


def app_schedules(labels=()):
    """``{label: schedules module}`` of the installed apps with a ``BEAT_SCHEDULE``."""
    found = {}
    for config in apps.get_app_configs():
        if labels and config.label not in labels:
            continue
        if config.module is None or not module_has_submodule(config.module, "schedules"):
            continue
        module = import_module(f"{config.name}.schedules")
        if hasattr(module, "BEAT_SCHEDULE"):
            found[config.label] = module
    missing = set(labels) - set(found)
    if missing:
        raise CommandError(
            gettext("No installed app with a beat schedule: %(apps)s.")
            % {"apps": ", ".join(sorted(missing))}
        )
    return found


def schedule_fields(schedule):
    """The ``PeriodicTask`` fields of a beat ``schedule``: seconds, a timedelta or a crontab."""
    from celery.schedules import crontab
    from django_celery_beat.models import CrontabSchedule, IntervalSchedule

    fields = {"interval": None, "crontab": None, "solar": None, "clocked": None}
    if isinstance(schedule, crontab):
        row = CrontabSchedule.from_schedule(schedule)
        row.save()
        return {**fields, "crontab": row}
    seconds = schedule.total_seconds() if isinstance(schedule, timedelta) else schedule
    if seconds <= 0 or seconds != int(seconds):
        raise CommandError(
            gettext("A schedule must be whole seconds above 0, not %(schedule)s.")
            % {"schedule": repr(schedule)}
        )
    period, size = next((p, s) for p, s in PERIODS if seconds % s == 0)
    row = IntervalSchedule.objects.filter(every=seconds // size, period=period).first()
    row = row or IntervalSchedule.objects.create(every=seconds // size, period=period)
    return {**fields, "interval": row}


def entry_fields(entry, description):
    """Every field a beat entry sets on its ``PeriodicTask`` (all of them, for --reset)."""
    return {
        "task": entry["task"],
        "args": json.dumps(list(entry.get("args") or [])),
        "kwargs": json.dumps(entry.get("kwargs") or {}),
        # Seconds after sending; a fixed date (``expires``) is not a schedule's.
        "expire_seconds": entry.get("options", {}).get("expires"),
        "expires": None,
        "one_off": False,
        "enabled": True,
        "description": description,
        **schedule_fields(entry["schedule"]),
    }


class Command(BaseCommand):
    # A property: argparse wraps the description with re, which takes no lazy string.
    @property
    def help(self):
        return gettext(
            "Create the django-celery-beat entries of the apps' periodic tasks "
            "(each app's schedules.BEAT_SCHEDULE). Existing entries are kept as they are."
        )

    def add_arguments(self, parser):
        parser.add_argument(
            "app_labels", nargs="*", metavar="APP", help=_("only these apps (default: all)")
        )
        parser.add_argument(
            "--reset",
            action="store_true",
            help=_("also put each existing entry back to the app's defaults"),
        )

    def handle(self, *args, app_labels, reset, verbosity, **options):
        if not apps.is_installed("django_celery_beat"):
            raise CommandError(
                gettext(
                    "django-celery-beat is not in INSTALLED_APPS: put the apps' BEAT_SCHEDULE "
                    "dicts into CELERY_BEAT_SCHEDULE instead (see the docs on schedules)."
                )
            )
        from django_celery_beat.models import PeriodicTask

        created = reset_count = kept = 0
        with transaction.atomic():
            for module in app_schedules(app_labels).values():
                descriptions = getattr(module, "DESCRIPTIONS", {})
                for name, entry in module.BEAT_SCHEDULE.items():
                    existing = PeriodicTask.objects.filter(name=name).first()
                    if existing is not None and not reset:
                        kept += 1
                        if verbosity >= 2:
                            done = gettext("kept")
                            self.stdout.write(f"{done:<8} {existing}")
                        continue
                    fields = entry_fields(entry, descriptions.get(name, ""))
                    task = existing or PeriodicTask(name=name)
                    for field, value in fields.items():
                        setattr(task, field, value)
                    task.save()  # save() tells a running DatabaseScheduler
                    if existing is None:
                        created += 1
                    else:
                        reset_count += 1
                    if verbosity >= 2:
                        done = gettext("reset") if existing else gettext("created")
                        self.stdout.write(f"{done:<8} {task}")
        if verbosity >= 1:
            counts = {"created": created, "kept": kept, "reset": reset_count}
            if reset:
                message = gettext(
                    "Beat entries: %(created)d created, %(kept)d kept as they were, "
                    "%(reset)d reset to the defaults."
                )
            else:
                message = gettext("Beat entries: %(created)d created, %(kept)d kept as they were.")
            self.stdout.write(self.style.SUCCESS(message % counts))
