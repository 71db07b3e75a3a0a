"""The cheat sheet's calling and canvas examples, run by a real worker process."""

import pytest
from celery import chain, chord, group
from django_celery_results.models import TaskResult

from project.celery import app as celery_app
from project.tasks import add, mul, xsum

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("celery_worker")]


def test_add_delay_returns_the_sum():
    """add.delay(1, 1) is executed by the worker and its result comes back."""
    result = add.delay(1, 1)
    assert result.get(timeout=30) == 2
    assert result.ready()


def test_group_returns_every_result_in_order():
    """group(add.s(i, i) for i in range(10)) gives [0, 2, ..., 18]."""
    assert group(add.s(i, i) for i in range(10))().get(timeout=30) == list(range(0, 20, 2))


def test_chain_feeds_each_result_to_the_next_task():
    """chain(add.s(4, 4) | mul.s(8)) computes (4 + 4) * 8."""
    assert chain(add.s(4, 4) | mul.s(8))().get(timeout=30) == 64


def test_chord_calls_back_with_all_results():
    """chord((add.s(i, i) for i in range(10)), xsum.s()) sums the header's results."""
    assert chord((add.s(i, i) for i in range(10)), xsum.s())().get(timeout=30) == 90


def test_failed_task_returns_exception_and_traceback():
    """add.delay(1, '1') fails; get(propagate=False) returns the error, with its traceback."""
    result = add.delay(1, "1")
    error = result.get(timeout=30, propagate=False)
    assert isinstance(error, TypeError)
    assert "unsupported operand" in str(error)
    assert result.status == "FAILURE"
    assert "Traceback" in result.traceback
    assert "TypeError" in result.traceback


def test_results_are_stored_with_task_name_and_args():
    """django-celery-results keeps each result with its task name, args and worker."""
    result = add.delay(20, 22)
    assert result.get(timeout=30) == 42
    stored = TaskResult.objects.get(task_id=result.id)
    assert stored.status == "SUCCESS"
    assert stored.task_name == "project.tasks.add"
    assert "20" in stored.task_args and "22" in stored.task_args
    assert stored.result == "42"
    assert stored.worker.startswith("test-")


def test_pickle_message_is_refused(celery_worker):
    """A pickled message (code execution on load) is refused by the worker, not run."""
    pickled = celery_app.send_task("project.tasks.add", args=(2, 2), serializer="pickle")
    assert add.delay(3, 3).get(timeout=30) == 6  # a later JSON message is served...
    assert pickled.status == "PENDING"  # ... the pickled one never ran
    assert "Refusing to deserialize untrusted content of type pickle" in celery_worker.output
