"""djangofeeds' periodic tasks, as data a host puts into ``CELERY_BEAT_SCHEDULE``.

Plain Celery beat entries (``task``, ``schedule`` in seconds, ``options``), keyed by
the name django-celery-beat shows; ``manage.py setup_schedules`` writes them there
as editable entries instead. No Celery or beat import: a host reads this in settings.
"""

# The tick claims at most one batch of due feeds, so it must come often; a copy
# that waited longer than TICK_EXPIRES is dropped, so ticks never pile up.
TICK_SECONDS = 5
TICK_EXPIRES = 4

BEAT_SCHEDULE = {
    "djangofeeds: import due feeds": {
        "task": "djangofeeds.tasks.refresh_feeds",
        "schedule": TICK_SECONDS,
        "options": {"expires": TICK_EXPIRES},
    },
    "djangofeeds: prune old posts, import runs and task results": {
        "task": "djangofeeds.tasks.cleanup",
        "schedule": 3600,
        # A copy that waited for an hour behind a backlog is dropped: the next one comes.
        "options": {"expires": 3000},
    },
    "djangofeeds: renew WebSub subscriptions": {
        "task": "djangofeeds.tasks.renew_subscriptions",
        "schedule": 3600,
        "options": {"expires": 3000},
    },
    "djangofeeds: mail the weekly feed health digest": {
        "task": "djangofeeds.tasks.send_health_digest",
        "schedule": 7 * 24 * 3600,
        "options": {"expires": 24 * 3600},
    },
}

# What django-celery-beat's admin shows next to each entry.
DESCRIPTIONS = {
    "djangofeeds: import due feeds": (
        "Claims a batch of due feeds and queues one import each (every 5 seconds)."
    ),
    "djangofeeds: prune old posts, import runs and task results": (
        "Keeps DJANGOFEEDS_KEEP_POSTS posts per feed, the import runs of the last "
        "DJANGOFEEDS_KEEP_RUNS_DAYS days (and always the last DJANGOFEEDS_KEEP_RUNS_PER_FEED "
        "of each feed), and this app's task results younger than CELERY_RESULT_EXPIRES. "
        "Deletes in bounded batches."
    ),
    "djangofeeds: renew WebSub subscriptions": (
        "Renews the WebSub leases that end within 12 hours, asks again for subscriptions a "
        "hub never verified, and unsubscribes deactivated feeds (nothing when "
        "DJANGOFEEDS_PUBLIC_URL is unset)."
    ),
    "djangofeeds: mail the weekly feed health digest": (
        "Mails the feed health changes of the last week (failing, dead, moved, gone, silent, "
        "ok again) to DJANGOFEEDS_DIGEST_TO, else the ADMINS; nothing in a week without one."
    ),
}
