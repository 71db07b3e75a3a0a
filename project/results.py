"""The result backend: django-celery-results' database backend, each state one upsert.

django-celery-results writes a task's state with ``get_or_create`` and, when
the row exists, a ``save()``: a SELECT, then an INSERT in a transaction of its
own (BEGIN, INSERT, COMMIT), or a SELECT and an UPDATE. On a database that
upserts with a conflict target (PostgreSQL, SQLite), the same row is written
here by one ``INSERT ... ON CONFLICT (task_id) DO UPDATE``, its SQL written
once per kind of database (``upsert_statement``): one statement and one commit
per state, which a skipped import (its only write besides its run)
and every task whose result is kept pay (bench/profile_skip.py). Elsewhere
(MariaDB, MySQL) the library's own path runs. The rows, the admin and the
cleanup are the library's, unchanged.
"""

import logging

from celery import states
from django.db import InterfaceError, OperationalError, connections, router
from django.db.models.constants import OnConflict
from django.utils import timezone
from django_celery_results.backends.database import DatabaseBackend as LibraryBackend

logger = logging.getLogger(__name__)

# States the database could not take in this process since it last took one.
LOST = {"states": 0}

# Columns a later state of the same task rewrites; ``date_created`` stays the first one's.
REWRITTEN = [
    "status",
    "result",
    "traceback",
    "meta",
    "content_encoding",
    "content_type",
    "periodic_task_name",
    "task_name",
    "task_args",
    "task_kwargs",
    "worker",
    "date_done",
]


class DatabaseBackend(LibraryBackend):
    """``django-db`` with one upsert per state where the database has one."""

    def store_result(self, task_id, result, state, traceback=None, request=None, **kwargs):
        """A state the database cannot take is lost with one line per outage (per process).

        Celery would raise out of the task's tracer: tracebacks "outside body" in the
        pool process and again in the worker's, for every task, where the task's own
        line already says what failed (issue 43).
        """
        try:
            stored = super().store_result(task_id, result, state, traceback, request, **kwargs)
        except (OperationalError, InterfaceError) as exc:
            if not LOST["states"]:
                first_line = f"{type(exc).__name__}: {exc}".splitlines()[0]
                logger.warning("Task results are not stored: the database fails (%s)", first_line)
            LOST["states"] += 1
            return result
        if LOST["states"]:
            logger.warning("Task results are stored again (%d states were lost)", LOST["states"])
            LOST["states"] = 0
        return stored

    def _store_result(self, task_id, result, status, traceback=None, request=None, using=None):
        model = self.TaskModel
        alias = using or router.db_for_write(model)
        if not connections[alias].features.supports_update_conflicts_with_target:
            return super()._store_result(task_id, result, status, traceback, request, using)
        content_type, content_encoding, encoded = self.encode_content(result)
        children = self.current_task_children(request)
        meta = {**self._get_meta_from_request(request), "children": children}
        fields = {
            "status": status,
            "result": encoded,
            "traceback": traceback,
            "meta": self.encode_content(meta)[2],
            "content_encoding": content_encoding,
            "content_type": content_type,
            **self._get_extended_properties(request, traceback),  # as the library's order
        }
        now = timezone.now()
        started = status == states.STARTED
        # As the model would fill them (auto_now_add, auto_now); the start only with STARTED.
        values = {"task_id": task_id, **fields, "date_created": now, "date_done": now}
        values["date_started"] = now if started else None
        connection = connections[alias]
        sql, columns = upsert_statement(model, connection, started)
        params = [
            field.get_db_prep_save(values.get(field.attname, field.get_default()), connection)
            for field in columns
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
        return encoded


def upsert_statement(model, connection, started):
    """The upsert's SQL for ``connection`` and the fields its parameters fill, in order.

    Written once per kind of database and of state, as Django's ``bulk_create``
    would write it (``on_conflict_suffix_sql``): compiling that statement for
    each state took a third of a skipped import's result write
    (bench/profile_skip.py). A ``STARTED`` state also sets ``date_started``,
    which later states keep.
    """
    key = (model, connection.vendor, started)
    if key not in STATEMENTS:
        STATEMENTS[key] = write_upsert(model, connection.ops, started)
    return STATEMENTS[key]


STATEMENTS = {}  # (model, vendor, started) -> upsert_statement's answer


def write_upsert(model, ops, started):
    meta = model._meta
    fields = [field for field in meta.concrete_fields if not field.primary_key]
    rewritten = [*REWRITTEN, "date_started"] if started else REWRITTEN
    upsert = ops.on_conflict_suffix_sql(
        fields,
        OnConflict.UPDATE,
        [meta.get_field(name).column for name in rewritten],
        [meta.get_field("task_id").column],
    )
    sql = (
        f"INSERT INTO {ops.quote_name(meta.db_table)} "
        f"({', '.join(ops.quote_name(field.column) for field in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) {upsert}"
    )
    return sql, fields
