"""The states an ``import_feed`` with a kept result writes itself, run as in a worker."""

import pytest

from djangofeeds.importing.runner import lock_key
from djangofeeds.locking.locks import CacheLock
from djangofeeds.tasks import import_feed
from localservers.feed_server import numbered_items, rss

pytestmark = pytest.mark.django_db


def traced_states(monkeypatch, url, task_id):
    """Run ``import_feed(url)`` with a worker's request (not eager); the states it stored."""
    stored = []
    monkeypatch.setattr(
        import_feed.backend, "store_result", lambda task_id, meta, state, **kw: stored.append(state)
    )
    # The tracer's own STARTED is off for this task (track_started=False): it writes none.
    assert not import_feed.track_started
    request = {"id": task_id, "hostname": "w@t", "ignore_result": False, "is_eager": False}
    import_feed.push_request(called_directly=False, **request)
    try:
        summary = import_feed.run(url)
    finally:
        import_feed.pop_request()
    return summary["status"], stored


def test_an_import_that_runs_is_started_then_done(feed_server, monkeypatch):
    """STARTED tells an operator the import runs (not still queued), as the setting says."""
    url = feed_server.serve("/started.xml", rss(numbered_items(2)))

    assert traced_states(monkeypatch, url, "started-1") == ("imported", ["STARTED"])


def test_a_skipped_import_writes_its_result_only(feed_server, monkeypatch):
    """A skip (the lock held elsewhere) writes no STARTED state: only its result, at once."""
    url = feed_server.serve("/skipped.xml", rss(numbered_items(1)))
    holder = CacheLock(lock_key(import_feed.name, url), expire=60)
    assert holder.acquire()
    try:
        assert traced_states(monkeypatch, url, "skip-2") == ("skipped", [])
    finally:
        holder.release()
