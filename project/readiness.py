"""Whether a worker can work: its database and the feeds' lock cache answer.

One check serves the worker's start (``wait_until_ready``: no "ready" while a
part is unreachable) and its container's healthcheck (``python -m
project.workercheck``). Each unreachable part is named in one line.
"""

import logging
import time

from django.core.cache import close_caches
from django.db import connections

from djangofeeds import conf
from djangofeeds.locking.locks import check_lock_cache
from project.health import check_database

logger = logging.getLogger(__name__)

# How often a starting worker asks again; an outage is said once, not each time.
RETRY_SECONDS = 5


def check_the_lock_cache():
    check_lock_cache(conf.DJANGOFEEDS_LOCK_CACHE)


WORKER_CHECKS = {"database": check_database, "lock cache": check_the_lock_cache}


def reason(exc):
    """An error in one line: its kind and the first line of its message."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def unreachable():
    """``{part: reason}`` for each part a worker needs that does not answer now."""
    failing = {}
    for name, check in WORKER_CHECKS.items():
        try:
            check()
        except Exception as exc:  # whatever the driver raises, the part is not usable
            failing[name] = reason(exc)
    return failing


def describe(failing):
    """``database unreachable (OperationalError: ...); lock cache unreachable (...)``."""
    return "; ".join(f"{name} unreachable ({why})" for name, why in failing.items())


def wait_until_ready(retry_seconds=RETRY_SECONDS):
    """Block until every part answers; say what is wrong once per outage, and when it ends.

    Then close what the checks opened: the pool's processes are forked after
    this, and must not share the parent's database or memcached sockets.
    """
    told = set()
    try:
        while failing := unreachable():
            if set(failing) != told:
                logger.error(
                    "Worker not ready: %s; trying again every %ss",
                    describe(failing),
                    retry_seconds,
                )
                told = set(failing)
            time.sleep(retry_seconds)
        if told:
            logger.warning("Worker ready to start: %s answer again", " and ".join(sorted(told)))
    finally:
        connections.close_all()
        close_caches()
