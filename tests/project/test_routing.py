"""Queues and routes: each message lands in one queue, and only its workers take it."""

import pytest
from django.conf import settings
from django_celery_results.models import TaskResult

from localservers.workers import queue_name
from project.celery import app as celery_app
from project.tasks import add

pytestmark = pytest.mark.django_db(transaction=True)

QUEUES = [queue.name for queue in settings.CELERY_TASK_QUEUES]


def queue_sizes():
    with celery_app.connection_for_write() as conn:
        channel = conn.default_channel
        sizes = {}
        for queue in celery_app.amqp.queues.values():
            sizes[queue.name] = queue.bind(channel).queue_declare().message_count
        return sizes


def declare_and_purge_all():
    """Declare and bind every queue, as a worker on all queues does, and empty them."""
    with celery_app.connection_for_write() as conn:
        for queue in celery_app.amqp.queues.values():
            queue.bind(conn.default_channel).declare()
            conn.default_channel.queue_purge(queue.name)


@pytest.mark.parametrize(
    ("task_name", "options", "expected_queue"),
    [
        ("project.tasks.add", {}, "celery"),
        ("djangofeeds.tasks.import_feed", {}, "feeds"),
        ("djangofeeds.tasks.import_feed_batch", {}, "feeds"),
        ("blog.tasks.spam_filter", {}, "spam"),
        ("project.tasks.add", {"queue": "hipri"}, "hipri"),
        # Named explicitly, as a producer outside Celery's router would.
        ("project.tasks.add", {"exchange": "celery", "routing_key": "celery"}, "celery"),
        ("project.tasks.add", {"exchange": "hipri", "routing_key": "hipri"}, "hipri"),
    ],
)
def test_route_puts_message_in_exactly_one_queue(task_name, options, expected_queue):
    """A routed message is delivered to its own queue and copied into no other."""
    options = {key: queue_name(value) for key, value in options.items()}
    declare_and_purge_all()
    try:
        celery_app.send_task(task_name, args=(1, 2), **options)
        sizes = queue_sizes()
    finally:
        declare_and_purge_all()
    assert sizes == {name: int(name == queue_name(expected_queue)) for name in QUEUES}


def test_hipri_message_is_consumed_by_a_hipri_worker(worker_factory):
    """add.apply_async((2, 2), queue='hipri') runs on a worker listening only on hipri."""
    worker = worker_factory(queues=["hipri"])
    result = add.apply_async((2, 2), queue=queue_name("hipri"))
    assert result.get(timeout=30) == 4
    assert TaskResult.objects.get(task_id=result.id).worker == worker.hostname


def test_worker_ignores_queues_it_does_not_listen_on(worker_factory):
    """A hipri-only worker leaves default-queue work alone (nothing is executed twice)."""
    declare_and_purge_all()
    try:
        worker_factory(queues=["hipri"])
        pending = add.delay(1, 1)
        marker = add.apply_async((3, 3), queue=queue_name("hipri"))
        assert marker.get(timeout=30) == 6  # the worker is consuming ...
        assert pending.status == "PENDING"  # ... but not from "celery"
        assert queue_sizes()[queue_name("celery")] == 1
    finally:
        declare_and_purge_all()  # no later worker may run the leftover message
