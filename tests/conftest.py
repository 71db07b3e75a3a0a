"""Fixtures shared by the whole suite: real servers and real Celery workers."""

import contextlib
import shutil
import tempfile
from importlib.util import find_spec
from pathlib import Path

import pytest
import redis
from django.conf import settings

from blog import akismet_client
from localservers.akismet_server import AkismetStandIn
from localservers.feed_server import FeedServer
from localservers.services import Memcached, Redis
from localservers.workers import WorkerProcess
from project import broker
from project.celery import app as celery_app
from tests.blog.helpers import FAST_RETRIES, KEY

# What only this repository's own site wires: worker processes on its queues,
# its broker settings. Under settings without them (tests/settings_apps.py: the
# apps alone in a host) the tests that need them are left out, and counted.
PROJECT_WIRING = {
    "worker_factory",
    "celery_worker",
    "spam_worker",
    "use_broker",
    "private_broker",
    "purge_queues",
}


# django-celery-beat 2.9.0 requires Django < 6.1: where it cannot be installed, the
# tests marked `beat` (its models, its scheduler) are not applicable, and counted so.
BEAT_INSTALLED = find_spec("django_celery_beat") is not None
NOT_APPLICABLE = pytest.StashKey[int]()


def pytest_configure(config):
    import django

    if django.VERSION >= (6, 1):
        # The newest Django line: a deprecation the apps' own code raises fails its test.
        for category in ("DeprecationWarning", "PendingDeprecationWarning"):
            config.addinivalue_line(
                "filterwarnings", rf"error::{category}:(djangofeeds|blog)(\..*)?$"
            )


@pytest.hookimpl(trylast=True)  # after -m: count only what this run would have run
def pytest_collection_modifyitems(config, items):
    leave_out_project_wiring(config, items)
    leave_out_beat(config, items)


def leave_out_beat(config, items):
    """Without django-celery-beat, leave out the tests marked beat, and count them."""
    if BEAT_INSTALLED:
        return
    beat = [item for item in items if item.get_closest_marker("beat")]
    if beat:
        config.hook.pytest_deselected(items=beat)
        items[:] = [item for item in items if item not in beat]
    config.stash[NOT_APPLICABLE] = len(beat)
    if hasattr(config, "workeroutput"):  # a pytest-xdist worker tells its controller
        config.workeroutput["not_applicable"] = len(beat)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist's controller: each worker collected the same tests; one count is it."""
    if "not_applicable" in getattr(node, "workeroutput", {}):
        node.config.stash[NOT_APPLICABLE] = node.workeroutput["not_applicable"]


def pytest_terminal_summary(terminalreporter, config):
    count = config.stash.get(NOT_APPLICABLE, None)
    if count is not None:
        import django

        terminalreporter.write_line(
            f"{count} tests not applicable on Django {django.get_version()}: they need "
            "django-celery-beat, which requires Django < 6.1 (marked beat)"
        )


def leave_out_project_wiring(config, items):
    """Under a host's settings, leave out the tests that need the project's wiring."""
    if hasattr(settings, "TEST_QUEUE_SUFFIX"):
        return  # the project's own test settings: everything runs
    wired = [
        item
        for item in items
        if PROJECT_WIRING & set(getattr(item, "fixturenames", ()))
        or item.get_closest_marker("project_wiring")
    ]
    if wired:
        config.hook.pytest_deselected(items=wired)
        items[:] = [item for item in items if item not in wired]
        print(f"\n{len(wired)} tests need the project's own wiring: left out under these settings")


@pytest.fixture
def no_rate_limit(settings):
    """Many comments from one test IP: no per-IP limit."""
    settings.BLOG_COMMENTS_PER_MINUTE = 0


@pytest.fixture(autouse=True)
def forget_process_local_cache():
    """A process-local cache (a host's LocMem default) is emptied after each test, as the
    database cache's rows are rolled back: a lock, a rate-limit count or a host's
    Retry-After left by one test must not reach the next. Shared caches are left alone."""
    yield
    from django.core.cache import caches

    for alias in settings.CACHES:
        if settings.CACHES[alias]["BACKEND"].endswith("LocMemCache"):
            caches[alias].clear()


@pytest.fixture(autouse=True)
def forget_loopback_retry_after():
    """A test's 429/503 with Retry-After defers every feed of its host (127.0.0.1, localhost:
    every test server) until then; on a shared cache (memcached) that would reach the tests
    after it. The deferral ends with the test, as a rolled-back database cache row does."""
    yield
    from django.core.cache import caches

    from djangofeeds import conf
    from djangofeeds.locking.hosts import host_key

    with contextlib.suppress(Exception):  # a test may leave the cache stopped
        caches[conf.DJANGOFEEDS_LOCK_CACHE].delete_many(
            [host_key(host, "not-before") for host in ("127.0.0.1", "localhost")]
        )


def pytest_sessionfinish(session, exitstatus):
    """Remove this session's scratch folder, and its keys or queues on a shared broker."""
    prefix = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}).get("global_keyprefix")
    if prefix:
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
    if broker.broker_kind(getattr(settings, "CELERY_BROKER_URL", "")) == "amqp":
        delete_session_queues()
    var_dir = Path(getattr(settings, "VAR_DIR", settings.DATABASES["default"]["NAME"]))
    if var_dir.parent == Path(tempfile.gettempdir()) and var_dir.name.startswith("project-tests-"):
        shutil.rmtree(var_dir, ignore_errors=True)


def delete_session_queues():
    """On RabbitMQ: this session's queues and exchanges (tests/settings.py names them)."""
    conf = celery_app.conf
    exchanges = {queue.exchange.name for queue in celery_app.amqp.queues.values()}
    exchanges |= {
        f"{conf.control_exchange}.pidbox",
        f"reply.{conf.control_exchange}.pidbox",
        conf.event_exchange,
    }
    with celery_app.connection_for_write() as conn:
        channel = conn.default_channel
        for queue in celery_app.amqp.queues.values():
            channel.queue_delete(queue.name)
        for exchange in exchanges:
            channel.exchange_delete(exchange)


@pytest.fixture
def memcached():
    """A private memcached that the test may stop and start."""
    server = Memcached().start()
    yield server
    server.stop()


@pytest.fixture
def memcached_cache(settings, memcached):
    """The default cache on a private, real memcached."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
            "LOCATION": memcached.location,
            "OPTIONS": getattr(settings, "MEMCACHED_OPTIONS", {}),
        }
    }
    return memcached


@pytest.fixture
def feed_server():
    """A local HTTP server that serves the feeds a test sets up."""
    server = FeedServer().start()
    yield server
    server.stop()


@pytest.fixture
def redis_server():
    """A private Redis that the test may stop and start."""
    server = Redis().start()
    yield server
    server.stop()


def stop_cleanly(worker):
    code = worker.stop()
    assert code == 0, f"worker exited with {code}:\n{worker.log_tail()}"


@pytest.fixture
def worker_factory(django_db_setup, django_db_blocker):
    """Start real worker processes on the test database; stop them cleanly afterwards."""
    workers = []

    def start(**kwargs):
        with django_db_blocker.unblock():  # the worker's env names the test database
            workers.append(WorkerProcess(**kwargs).start())
        return workers[-1]

    yield start
    for worker in workers:
        if not worker.killed:  # a test that kills a worker has seen how it ended
            stop_cleanly(worker)


@pytest.fixture(scope="module")
def celery_worker(django_db_setup, django_db_blocker):
    """One worker on every queue, shared by a test module."""
    with django_db_blocker.unblock():
        worker = WorkerProcess().start()
    yield worker
    stop_cleanly(worker)


BROKER_SETTINGS = (
    "broker_write_url",
    "broker_transport_options",
    "broker_connection_timeout",
    "task_publish_retry_policy",
    "broker_heartbeat",
)


@pytest.fixture
def use_broker():
    """Point the app's new broker connections at another URL for one test.

    They get the settings a request process has for that URL's transport
    (project/broker.py), plus any transport options given.
    """
    # broker_write_url, not broker_url: Celery reads CELERY_BROKER_URL from the
    # environment before its own setting, so only this one can be overridden.
    original = {name: celery_app.conf.get(name) for name in BROKER_SETTINGS}
    yield switch_broker
    celery_app.conf.update(original)
    drop_broker_pools()


def switch_broker(url, transport_options=None):
    """Publish from this process to ``url`` from now on, as a request process would."""
    celery_app.conf.update(broker.celery_settings(url, broker.REQUEST, transport_options))
    celery_app.conf.broker_write_url = url
    drop_broker_pools()


def drop_broker_pools():
    """The next publish connects anew (with the current settings)."""
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def private_broker(redis_server, use_broker):
    """A Redis of this test's own, that it may stop: this process publishes there."""
    # The same key prefix as tests/settings.py gives a worker on a Redis broker.
    use_broker(redis_server.url, {"global_keyprefix": f"{settings.VAR_DIR.name}:"})
    return redis_server


@pytest.fixture(scope="package")
def akismet_server():
    """The Akismet stand-in on loopback, shared by the blog, browser and fault tests."""
    server = AkismetStandIn(keys=[KEY]).start()
    yield server
    server.stop()


@pytest.fixture
def akismet(akismet_server):
    """The package's stand-in, with its log cleared and every fault off."""
    akismet_server.reset()
    if akismet_server._server is None:  # a test stopped it and failed before restarting it
        akismet_server.start()
    yield akismet_server
    akismet_server.reset()


@pytest.fixture
def akismet_settings(settings, akismet):
    """This process's settings pointed at the stand-in, as the workers' are."""
    settings.AKISMET_API_KEY = KEY
    settings.AKISMET_API_URL = akismet.url
    for name, value in FAST_RETRIES.items():
        setattr(settings, name, value)
    akismet_client.reset_client()
    yield settings
    akismet_client.reset_client()


@pytest.fixture
def bare_host(settings):
    """A host of its own: the blog at journal/, the feeds at reader/ (tests.support.host_urls),
    and no templates but the apps' own (no project DIRS: no base.html, no site.css)."""
    settings.ROOT_URLCONF = "tests.support.host_urls"
    settings.TEMPLATES = [{**engine, "DIRS": []} for engine in settings.TEMPLATES]
    return settings


@pytest.fixture
def receive():
    """``receive(signal, answer=None)``: the list a real receiver appends each sending's
    arguments to; the receiver returns ``answer``."""
    connected = []

    def connect(signal, answer=None):
        calls = []

        def receiver(sender, signal, **kwargs):
            calls.append({"sender": sender, **kwargs})
            return answer

        signal.connect(receiver, weak=False)
        connected.append((signal, receiver))
        return calls

    yield connect
    for signal, receiver in connected:
        signal.disconnect(receiver)
