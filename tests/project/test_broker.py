"""project/broker.py: broker timeouts in the names each transport honours, per role."""

import inspect
import os
import sys

import amqp
import pytest
from django.conf import settings
from kombu.exceptions import OperationalError
from kombu.transport.redis import Channel as RedisChannel

from localservers.processes import WatchedProcess
from project import broker
from project.celery import app as celery_app

ROLES = [broker.REQUEST, broker.WORKER]
AMQP_URL, REDIS_URL = "amqp://guest:guest@rabbitmq:5672//", "redis://redis:6379/0"


@pytest.mark.parametrize("role", ROLES)
def test_amqp_timeouts_are_arguments_py_amqp_takes(role):
    """On amqp:// the timeouts are py-amqp Connection arguments, not Redis names it ignores."""
    options = broker.transport_timeouts(AMQP_URL, role)
    accepted = set(inspect.signature(amqp.Connection.__init__).parameters)
    assert options and set(options) <= accepted, set(options) - accepted
    assert {"read_timeout", "write_timeout"} <= set(options)


@pytest.mark.parametrize("role", ROLES)
def test_redis_timeouts_are_options_kombu_redis_reads(role):
    """On redis:// the timeouts are transport options kombu's Redis channel reads."""
    options = broker.transport_timeouts(REDIS_URL, role)
    assert options and set(options) <= set(RedisChannel.from_transport_options)
    assert {"socket_connect_timeout", "socket_timeout"} <= set(options)


@pytest.mark.parametrize("url", [AMQP_URL, REDIS_URL])
def test_a_hung_broker_costs_a_request_under_two_seconds_and_a_worker_more(url):
    """Attempts x (connect + io) stays under 2 s for a request; workers wait longer per step
    (their longest single wait is above Redis's 1 s BRPOP)."""
    request = broker.celery_settings(url, broker.REQUEST)
    attempts = 1 + request["task_publish_retry_policy"]["max_retries"]
    per_attempt = request["broker_connection_timeout"] + max(
        request["broker_transport_options"].values()
    )
    assert attempts * per_attempt <= 2
    worker = broker.celery_settings(url, broker.WORKER)
    assert worker["broker_connection_timeout"] > request["broker_connection_timeout"]
    assert min(worker["broker_transport_options"].values()) > 1


def test_other_transport_options_are_kept():
    """Only the timeouts are set: a key prefix or folders given with them survive."""
    options = broker.celery_settings(REDIS_URL, broker.WORKER, {"global_keyprefix": "x:"})
    assert options["broker_transport_options"]["global_keyprefix"] == "x:"
    assert broker.celery_settings("filesystem://", broker.REQUEST, {"data_folder_in": "q"})[
        "broker_transport_options"
    ] == {"data_folder_in": "q"}


def test_this_process_publishes_with_request_timeouts():
    """The settings (web, commands, this test process) hold a request's timeouts."""
    assert celery_app.conf.broker_connection_timeout == broker.TIMEOUTS[broker.REQUEST].connect


def test_a_worker_runs_with_worker_timeouts(worker_factory):
    """A real worker switches to broker.WORKER at start (project/celery.py), as its own
    configuration, asked over the broker, shows."""
    worker = worker_factory(queues=["hipri"], concurrency=1)
    # A connection of its own: a pooled one may have been closed by the broker
    # since an earlier test used it, and a broadcast does not reconnect.
    with celery_app.connection_for_write() as connection:
        inspect = celery_app.control.inspect([worker.hostname], timeout=10, connection=connection)
        replies = inspect.conf(with_defaults=True)
    conf = replies[worker.hostname]
    expected = broker.transport_timeouts(celery_app.conf.broker_url, broker.WORKER)
    assert conf["broker_connection_timeout"] == broker.TIMEOUTS[broker.WORKER].connect
    assert conf["broker_heartbeat"] == broker.TIMEOUTS[broker.WORKER].heartbeat
    # (Celery shows a key prefix masked: only the timeouts are compared.)
    assert {name: conf["broker_transport_options"][name] for name in expected} == expected


def test_beat_runs_with_worker_timeouts(tmp_path):
    """celery beat switches to broker.WORKER at start too, and says so in its log."""
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="tests.settings")
    # A file schedule with no entries: this beat publishes nothing into the session's queues.
    argv = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "project",
        "beat",
        "-l",
        "INFO",
        "--scheduler",
        "celery.beat:PersistentScheduler",
        "-s",
        str(tmp_path / "schedule"),
    ]
    beat = WatchedProcess(argv, cwd=settings.BASE_DIR, env=env)
    try:
        line = beat.wait_for(r"broker timeouts: worker \(connect ([\d.]+) s, io ([\d.]+) s", 60)
    finally:
        beat.kill()
    worker = broker.TIMEOUTS[broker.WORKER]
    assert (float(line.group(1)), float(line.group(2))) == (worker.connect, worker.io)


def test_check_broker_raises_only_when_the_broker_does_not_answer(use_broker):
    """/healthz's probe: the session's broker answers; an address where nothing listens raises."""
    broker.check_broker()
    use_broker("redis://127.0.0.1:1/0")  # nothing listens there
    with pytest.raises(OperationalError):
        broker.check_broker()
