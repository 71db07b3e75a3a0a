"""The database unreachable under a running worker (issue 43.5): one line per task.

Real processes: a worker whose database connections go through a TCP proxy
(``localservers.tcp_proxy``) that the test cuts, as a database host gone would;
the database itself keeps serving the test.
"""

import re

import pytest
from django.db import connection

from djangofeeds.tasks import import_feed
from localservers.feed_server import numbered_items, rss
from localservers.tcp_proxy import TcpProxy
from localservers.waiting import wait_until
from localservers.workers import database_url
from tests.support.workers import feeds_worker

pytestmark = pytest.mark.django_db(transaction=True)

TASK_LINE = re.compile(r"\[[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\]")

network_database = pytest.mark.skipif(
    connection.vendor not in ("postgresql", "mysql"),
    reason="SQLite is a file opened in-process: there is no server to become unreachable",
)


def proxied_database():
    """A proxy to the test database, and the DATABASE_URL that goes through it."""
    settings_dict = connection.settings_dict
    default_port = 5432 if connection.vendor == "postgresql" else 3306
    proxy = TcpProxy(
        settings_dict.get("HOST") or "127.0.0.1", settings_dict.get("PORT") or default_port
    )
    through = {**settings_dict, "HOST": proxy.host, "PORT": proxy.port}
    return proxy.start(), database_url(through)


@network_database
def test_tasks_failing_on_an_unreachable_database_log_one_line_each(
    feed_server, memcached_cache, worker_factory
):
    """The database gone under a ready worker: each task logs one line that names the task,
    what failed and why; no traceback (there were 6 per task: 12 for these 2)."""
    proxy, url = proxied_database()
    worker = feeds_worker(worker_factory, memcached_cache, DATABASE_URL=url)
    proxy.cut()
    feeds = [feed_server.serve(f"/f{n}.xml", rss(numbered_items(1))) for n in range(2)]

    ids = [import_feed.delay(feed).id for feed in feeds]
    ended = re.compile(r"import_feed\[({})\] (?:succeeded|raised)".format("|".join(ids)))
    try:
        wait_until(lambda: len(set(ended.findall(worker.output))) == 2, 60, "the tasks never ended")
    except AssertionError:
        raise AssertionError(worker.log_tail()) from None

    assert worker.output.count("Traceback") == 0
    said = [line for line in worker.output.splitlines() if re.search(r": (ERROR|WARNING)/", line)]
    for task_id, feed in zip(ids, feeds, strict=True):
        [line] = [line for line in said if task_id in line]
        assert f"Feed {feed}: not imported, lost the connection to the database" in line
        assert "OperationalError: " in line
    # Besides, the result backend's own line, once per pool process for the outage. Lines
    # of other tasks (an earlier test's index_posts left on this run's queue) are theirs.
    others = [line for line in said if not TASK_LINE.search(line)]
    assert all("Task results are not stored: the database fails" in line for line in others), others
    assert len(others) <= 2, others


@network_database
def test_any_other_task_failing_on_an_unreachable_database_logs_one_line(
    memcached_cache, worker_factory
):
    """A task with no handling of its own (the hourly cleanup): Celery's failure line for it,
    without its traceback (project.log_lines)."""
    from djangofeeds.tasks import cleanup

    proxy, url = proxied_database()
    worker = feeds_worker(worker_factory, memcached_cache, DATABASE_URL=url)
    proxy.cut()

    task_id = cleanup.delay().id
    raised = re.compile(rf"cleanup\[{task_id}\] raised unexpected: (\w+)")
    try:
        wait_until(lambda: raised.search(worker.output), 60, "the task never ended")
    except AssertionError:
        raise AssertionError(worker.log_tail()) from None

    assert raised.search(worker.output)[1] in ("OperationalError", "InterfaceError")
    assert worker.output.count("Traceback") == 0
    [line] = [line for line in worker.output.splitlines() if task_id in line and "ERROR" in line]
    assert "djangofeeds.tasks.cleanup" in line
