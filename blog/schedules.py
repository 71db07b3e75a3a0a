"""The blog's periodic tasks, as data a host puts into ``CELERY_BEAT_SCHEDULE``.

Plain Celery beat entries (``task``, ``schedule`` in seconds, ``options``), keyed by
the name django-celery-beat shows; ``manage.py setup_schedules`` writes them there
as editable entries instead. No Celery or beat import: a host reads this in settings.
"""

BEAT_SCHEDULE = {
    "blog: re-check pending comments": {
        "task": "blog.tasks.recheck_pending_comments",
        "schedule": 10 * 60,
    },
    "blog: purge old spam": {
        "task": "blog.tasks.purge_spam",
        "schedule": 24 * 3600,
    },
}

# What django-celery-beat's admin shows next to each entry.
DESCRIPTIONS = {
    "blog: re-check pending comments": (
        "Sends comments pending longer than BLOG_SPAM_RECHECK_AFTER_MINUTES to the spam "
        "check again (a broker that was down, a lost task)."
    ),
    "blog: purge old spam": "Deletes spam older than BLOG_SPAM_PURGE_AFTER_DAYS.",
}
