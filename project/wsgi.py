"""WSGI entry point, as served by gunicorn (``gunicorn project.wsgi``)."""

import gc
import logging
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

application = get_wsgi_application()

logger = logging.getLogger(__name__)


def warm_up():
    """Load what sending a task needs before the first request, without connecting.

    Otherwise a new process's first comment POST builds Celery's task registry,
    producer pool and result backend, imports the broker's client library and
    compiles the form validators' patterns: 0.2 to 0.8 s in bench/profile_comments.py.
    """
    try:
        from project.celery import app

        app.finalize(auto=True)  # the task registry, as the first send would build it
        app.producer_pool  # noqa: B018 (builds the pool and imports the transport)
        app.backend  # noqa: B018 (the result backend a send records the task with)
    except Exception as exc:  # a web process starts even if Celery's setup fails here
        logger.warning("could not prepare the task producer at startup: %r", exc)
    from django.core.validators import URLValidator, validate_email

    # Django's email and URL validators compile their regular expressions on first use.
    # With the result backend above, a process's first comment POST took 47-52 ms, now 14-18.
    validate_email("warm-up@example.com")
    URLValidator()("https://example.com/")
    # What startup built lives as long as the process: keep it out of the collector's
    # full passes, which otherwise walk it during requests.
    gc.collect()
    gc.freeze()


warm_up()
