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
    """A 304: the feed's UPDATE and the run's INSERT are one transaction, one commit."""
    url = feed_server.serve("/etag-commits.xml", rss(numbered_items(3)), etag='"v1"')
    import_url(url)

    with counted_commits(monkeypatch) as commits:
        assert import_url(url).outcome == Outcome.NOT_MODIFIED

    assert commits == ["COMMIT"]


def test_a_first_import_commits_once_per_thousand_posts_and_once_at_the_end(
    feed_server, monkeypatch
):
    """300 new posts: one batch (posts, media, the fence) and one for the feed and its run."""
    import_url(feed_server.serve("/first-a.xml", rss(numbered_items(300, prefix="a"))))
    url = feed_server.serve("/first-b.xml", rss(numbered_items(300, prefix="b")))
    Feed.objects.create(url=url)  # the categories, shared, exist already

    with counted_commits(monkeypatch) as commits:
        assert import_url(url).run.created == 300

    assert commits == ["COMMIT", "COMMIT"]
