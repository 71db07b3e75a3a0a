"""The Celery app, configured from Django settings (as in Celery's Django example)."""

import logging
import os

from celery import Celery
from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    beat_init,
    celeryd_after_setup,
    celeryd_init,
    task_postrun,
    task_prerun,
)
from django.db import close_old_connections

from project import broker, filesystem_broker, redis_broker

# Set the default Django settings module for the 'celery' program.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

logger = logging.getLogger(__name__)

filesystem_broker.install()  # the embedded broker writes each message whole
redis_broker.install()  # one Redis client per channel, not one per publish
app = Celery("project")

# Read every CELERY_* Django setting: CELERY_BROKER_URL becomes broker_url.
app.config_from_object("django.conf:settings", namespace="CELERY")


@app.on_after_configure.connect
def make_broker_folders(sender, **kwargs):
    """The filesystem broker's folders, made when the app reads its settings (web and
    workers alike), not when the settings are imported."""
    broker.make_folders(sender.conf.broker_transport_options)


# Load tasks.py from every installed app, plus the cheat sheet's demo tasks,
# which live in project/ (not an app).
app.autodiscover_tasks()
app.conf.imports = ["project.tasks"]


@task_prerun.connect
@task_postrun.connect
def close_old_database_connections(task=None, **kwargs):
    """Around each task, what Django does around each request (CELERY_DB_REUSE_MAX's reason).

    Keeps a connection for CONN_MAX_AGE seconds, and drops one that broke (a
    restarted database) instead of failing the next task with it. Not for
    eager calls: they run inside the caller's transaction.
    """
    if not getattr(task.request, "is_eager", False):
        close_old_connections()


@after_setup_logger.connect
@after_setup_task_logger.connect
def filter_worker_logs(logger=None, **kwargs):
    """A worker sets up logging of its own (not the settings' LOGGING): filter its handlers
    too, a database failure first made one line, then secrets hidden."""
    from project.log_lines import one_line_database_errors_in
    from project.redact import hide_secrets_in

    one_line_database_errors_in(logger)
    hide_secrets_in(logger)


@celeryd_init.connect
@beat_init.connect
def wait_on_the_broker_as_a_worker(**kwargs):
    """Workers and beat live on the broker: they get broker.WORKER's longer timeouts.

    The settings hold a request's (a person waits on those). Both signals come
    before the first broker connection; prefork children inherit the change.
    """
    app.conf.update(
        broker.celery_settings(
            app.conf.broker_url, broker.WORKER, app.conf.broker_transport_options
        )
    )
    logger.info(
        "broker timeouts: worker (connect %s s, io %s s, %s publish retries)",
        app.conf.broker_connection_timeout,
        broker.TIMEOUTS[broker.WORKER].io,
        app.conf.task_publish_retry_policy["max_retries"],
    )


@celeryd_after_setup.connect
def wait_for_the_database_and_the_lock_cache(**kwargs):
    """No "ready" while the database or the lock cache is unreachable: one line says which.

    Sent once the worker's logging is set up, before its pool and its consumer
    start: no task is taken meanwhile, and ``inspect ping`` gets no answer. The
    worker waits rather than exits, as a worker waits for its broker: a restart
    loop would repeat the banner and the error, and systemd gives up on a unit
    that fails too often (docs/celery-and-scaling.md, "A worker's readiness").
    """
    from project.readiness import wait_until_ready

    wait_until_ready()
