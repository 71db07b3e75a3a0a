"""project.results: django-celery-results' rows, each task state written by one upsert."""

import uuid

import pytest
from celery import states
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_celery_results.models import TaskResult

from project.celery import app as celery_app
from project.results import DatabaseBackend

pytestmark = pytest.mark.django_db(transaction=True)


class Request:
    """What the worker's request carries for an extended result."""

    def __init__(self, task_id):
        self.id = task_id
        self.task = "djangofeeds.tasks.import_feed"
        self.hostname = "worker@here"
        self.argsrepr = "('http://example.com/feed.xml',)"
        self.kwargsrepr = "{}"
        self.children = []


def store(task_id, result, status, **options):
    return celery_app.backend.store_result(
        task_id, result, status, request=Request(task_id), **options
    )


def test_the_project_uses_the_upserting_backend():
    assert isinstance(celery_app.backend, DatabaseBackend)


def test_started_then_success_is_one_row_that_keeps_its_start():
    task_id = str(uuid.uuid4())
    store(task_id, {"pid": 1}, states.STARTED)
    started = TaskResult.objects.get(task_id=task_id)
    assert started.status == states.STARTED and started.date_started is not None

    store(task_id, {"status": "imported"}, states.SUCCESS)
    done = TaskResult.objects.get(task_id=task_id)
    assert done.status == states.SUCCESS
    assert done.date_started == started.date_started
    assert done.date_created == started.date_created
    assert done.date_done >= started.date_done
    assert done.task_name == "djangofeeds.tasks.import_feed"
    assert done.worker == "worker@here"
    assert "example.com" in done.task_args
    assert celery_app.backend.get_task_meta(task_id)["result"] == {"status": "imported"}


def test_a_failure_keeps_its_traceback():
    task_id = str(uuid.uuid4())
    store(task_id, ValueError("bad"), states.FAILURE, traceback="Traceback: bad")
    row = TaskResult.objects.get(task_id=task_id)
    assert row.status == states.FAILURE and row.traceback == "Traceback: bad"
    assert "ValueError" in row.result


def test_each_state_is_one_statement_where_the_database_upserts():
    task_id = str(uuid.uuid4())
    with CaptureQueriesContext(connection) as first:
        store(task_id, None, states.STARTED)
    with CaptureQueriesContext(connection) as second:
        store(task_id, 42, states.SUCCESS)
    writes = [q["sql"] for q in first.captured_queries + second.captured_queries]
    if connection.features.supports_update_conflicts_with_target:
        assert len(writes) == 2, writes  # PostgreSQL, SQLite
        assert all("ON CONFLICT" in sql for sql in writes)
    else:  # MariaDB, MySQL: the library's get_or_create and save
        assert len(writes) > 2
    assert TaskResult.objects.filter(task_id=task_id).count() == 1
    assert TaskResult.objects.get(task_id=task_id).result == "42"


def test_a_result_without_a_start_has_no_start_time():
    task_id = str(uuid.uuid4())
    store(task_id, {"status": "skipped"}, states.SUCCESS)
    row = TaskResult.objects.get(task_id=task_id)
    assert row.date_started is None
    assert row.date_created <= row.date_done
    assert row.status == states.SUCCESS and row.task_name == "djangofeeds.tasks.import_feed"
