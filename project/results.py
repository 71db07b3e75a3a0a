"""The result backend: django-celery-results' database backend, each state one upsert.

django-celery-results writes a task's state with ``get_or_create`` and, when
the row exists, a ``save()``: a SELECT, then an INSERT in a transaction of its
own (BEGIN, INSERT, COMMIT), or a SELECT and an UPDATE. On a database that
upserts with a conflict target (PostgreSQL, SQLite), the same row is written
here by one ``INSERT ... ON CONFLICT (task_id) DO UPDATE``: one statement and
one commit per state, which a skipped import (its only write besides its run)
and every task whose result is kept pay (bench/profile_skip.py). Elsewhere
(MariaDB, MySQL) the library's own path runs. The rows, the admin and the
cleanup are the library's, unchanged.
"""

from celery import states
from django.db import connections, router
from django.db.models.constants import OnConflict
from django.db.models.functions import Now
from django_celery_results.backends.database import DatabaseBackend as LibraryBackend

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
        row = model(task_id=task_id, **fields)
        rewritten = REWRITTEN
        if status == states.STARTED:
            row.date_started = Now()
            rewritten = [*REWRITTEN, "date_started"]
        # QuerySet._insert: what bulk_create runs, without its transaction (BEGIN, COMMIT).
        meta = model._meta
        model._base_manager.using(alias)._insert(
            [row],
            fields=[field for field in meta.concrete_fields if not field.primary_key],
            using=alias,
            on_conflict=OnConflict.UPDATE,
            update_fields=[meta.get_field(name) for name in rewritten],
            unique_fields=[meta.get_field("task_id")],
        )
        return encoded
