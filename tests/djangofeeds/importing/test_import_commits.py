"""How many commits an import makes, in autocommit as a worker runs it (no test transaction)."""

from contextlib import contextmanager

import pytest
from django.db import connection

from djangofeeds.models import Feed, Outcome
from localservers.feed_server import numbered_items, rss
from tests.support.importing import import_url

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def counted_commits(monkeypatch):
    """A list that ends holding the commits made inside: transactions, and lone writes."""
    commits = []
    real_commit = connection.commit

    def commit():
        commits.append("COMMIT")
        return real_commit()

    def execute(execute, sql, params, many, context):
        verb = sql.lstrip("(").split(None, 1)[0].upper()
        if not connection.in_atomic_block and verb not in ("SELECT", "BEGIN"):
            commits.append(verb)  # autocommitted on its own (SQLite's BEGIN opens a transaction)
        return execute(sql, params, many, context)

    monkeypatch.setattr(connection, "commit", commit)
    with connection.execute_wrapper(execute):
        yield commits


def test_an_unchanged_feed_commits_its_check_and_its_run_together(feed_server, monkeypatch):
    """A 304: the feed's UPDATE and the run's INSERT commit together, once: one transaction,
    or on PostgreSQL one statement (``WITH … UPDATE … INSERT``) and no transaction to open."""
    url = feed_server.serve("/etag-commits.xml", rss(numbered_items(3)), etag='"v1"')
    import_url(url)

    with counted_commits(monkeypatch) as commits:
        assert import_url(url).outcome == Outcome.NOT_MODIFIED

    assert commits == (["WITH"] if connection.vendor == "postgresql" else ["COMMIT"])


def first_import_commits(feed_server, monkeypatch, count):
    """The commits of a first import of ``count`` posts (the shared categories exist)."""
    import_url(feed_server.serve("/first-a.xml", rss(numbered_items(count, prefix="a"))))
    url = feed_server.serve("/first-b.xml", rss(numbered_items(count, prefix="b")))
    Feed.objects.create(url=url)
    with counted_commits(monkeypatch) as commits:
        assert import_url(url).run.created == count
    return commits


def test_a_first_import_commits_its_posts_the_feed_and_its_run_at_once(feed_server, monkeypatch):
    """300 new posts: one batch, and the feed's last write and the run in its transaction."""
    assert first_import_commits(feed_server, monkeypatch, 300) == ["COMMIT"]


def test_a_first_import_commits_once_per_batch(feed_server, monkeypatch):
    """Batches of 200 here: two commits, the feed and the run with the last batch."""
    monkeypatch.setattr("djangofeeds.importing.storage.FIRST_IMPORT_BATCH_SIZE", 200)

    assert first_import_commits(feed_server, monkeypatch, 300) == ["COMMIT", "COMMIT"]


def test_an_import_that_prunes_writes_the_feed_and_its_run_after(
    feed_server, monkeypatch, settings
):
    """Posts to prune: the batch, the prune, then the feed and its run (the pruned count)."""
    settings.DJANGOFEEDS_KEEP_POSTS = 100

    assert first_import_commits(feed_server, monkeypatch, 300) == ["COMMIT"] * 3


def test_a_first_import_writes_its_run_with_the_feed(feed_server):
    """The feed's last write carries the run: one statement on PostgreSQL, the run's INSERT
    right after the feed's UPDATE elsewhere; the saved run has the import's figures."""
    from django.test.utils import CaptureQueriesContext

    from djangofeeds.models import ImportRun

    url = feed_server.serve("/first-run.xml", rss(numbered_items(5)))
    Feed.objects.create(url=url)

    with CaptureQueriesContext(connection) as captured:
        result = import_url(url)

    writes = [q["sql"] for q in captured.captured_queries if "djangofeeds_importrun" in q["sql"]]
    assert len(writes) == 1
    assert writes[0].startswith("WITH updated AS (UPDATE") == (connection.vendor == "postgresql")
    run = ImportRun.objects.get(pk=result.run.pk)
    assert (run.outcome, run.created, run.http_status) == (Outcome.IMPORTED, 5, 200)
    assert run.finished_at >= run.started_at and Feed.objects.get(url=url).last_status == "imported"
