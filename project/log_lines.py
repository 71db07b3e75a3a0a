"""A task the database failed is said in one line, not with its traceback.

Celery logs a failing task as ``Task <name>[<id>] raised unexpected: <error>``
with the traceback. When the database is unreachable, every task of a busy
worker fails that way, and the tracebacks (pages of driver frames) say nothing
the error's first line does not. ``OneLineDatabaseErrors`` drops the traceback
of a record whose exception is the database's connection failure (or was caused
by one) and keeps the message's first line; any other error keeps its traceback.
``import_feed`` says more itself (djangofeeds.tasks: the feed, recorded on its
run); this covers every other task, the blog's included. A project concern,
like ``project.redact``: the apps never import it.
"""

import logging

from django.db import InterfaceError, OperationalError

UNREACHABLE = (OperationalError, InterfaceError)


def database_unreachable(exc):
    """Whether ``exc``, or an error it was raised from, is a lost or refused connection."""
    while exc is not None:
        if isinstance(exc, UNREACHABLE):
            return True
        exc = exc.__cause__
    return False


class OneLineDatabaseErrors(logging.Filter):
    """A handler filter: a database connection failure's record in one line, no traceback."""

    def filter(self, record):
        if record.exc_info and database_unreachable(record.exc_info[1]):
            record.exc_info, record.exc_text = None, None
            message = record.getMessage()
            record.msg, record.args = message.strip().splitlines()[0] if message else "", None
        return True


def one_line_database_errors_in(logger):
    """Add the filter to every handler of ``logger`` (Celery's, once it set them up)."""
    for handler in logger.handlers:
        if not any(isinstance(existing, OneLineDatabaseErrors) for existing in handler.filters):
            handler.addFilter(OneLineDatabaseErrors())
