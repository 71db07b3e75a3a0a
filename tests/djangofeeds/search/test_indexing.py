"""PostgreSQL's search vectors deferred out of an import, then filled by ``index_posts``."""

import time

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from djangofeeds import tasks
from djangofeeds.models import Post
from djangofeeds.search import search_posts
from djangofeeds.search.indexing import INDEX_POSTS, index_posts
from localservers.feed_server import rss
from tests.factories import FeedFactory, PostFactory
from tests.support.importing import import_url

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's search vector only"
)
ITEMS = [
    {"guid": "a", "title": "First", "description": "&lt;p&gt;An aardvark digs.&lt;/p&gt;"},
    {"guid": "b", "title": "Second", "description": "&lt;p&gt;A pangolin rolls.&lt;/p&gt;"},
]


def unindexed(**filters):
    """Titles of the posts whose search vector is NULL."""
    pks = list(Post.objects.filter(**filters).values_list("pk", flat=True))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT title FROM djangofeeds_post WHERE id = ANY(%s) AND search_vector IS NULL"
            " ORDER BY title",
            [pks],
        )
        return [title for (title,) in cursor.fetchall()]


def titles(query):
    # Titles only: test_migration_0015 asks at an older schema, without today's columns.
    found = search_posts(Post.objects.all(), query).values_list("title", flat=True)
    return sorted(found)


@pytest.mark.django_db
def test_import_leaves_vectors_null_and_queues_index_posts_after_commit(
    feed_server, django_capture_on_commit_callbacks
):
    """The import computes no vector; index_posts(feed) is sent once it commits."""
    url = feed_server.serve("/feed.xml", rss(ITEMS))
    with django_capture_on_commit_callbacks() as callbacks:
        feed = import_url(url).feed

    assert unindexed() == ["First", "Second"]
    sent = [c.__self__ for c in callbacks if getattr(c, "__self__", None) is not None]
    assert [(s.task, s.args) for s in sent if s.task == INDEX_POSTS] == [(INDEX_POSTS, (feed.pk,))]
    assert titles("aardvark") == []  # not found until indexed


@pytest.mark.django_db
def test_index_posts_makes_an_imported_feed_searchable(client, feed_server):
    """index_posts(feed) fills that feed's vectors, and the search page finds its posts."""
    PostFactory(title="Elsewhere", content="<p>aardvark</p>")
    feed = import_url(feed_server.serve("/feed.xml", rss(ITEMS))).feed

    assert index_posts(feed.pk, batch_size=1) == 2  # batches of one: the loop goes on
    assert unindexed() == []
    assert index_posts(feed.pk) == 0

    page = client.get("/feeds/", {"q": "aardvark"}).text
    assert "First" in page and "Second" not in page


@pytest.mark.django_db
def test_a_reimport_defers_the_new_vector_too(feed_server):
    """A rewritten post is found by its new words once indexed, not by its old ones."""
    url = feed_server.serve("/feed.xml", rss(ITEMS))
    feed = import_url(url).feed
    index_posts(feed.pk)
    changed = [{**ITEMS[0], "description": "&lt;p&gt;A wombat sleeps.&lt;/p&gt;"}, ITEMS[1]]
    feed_server.serve("/feed.xml", rss(changed))
    assert import_url(url).run.updated == 1

    assert unindexed() == ["First"]
    index_posts(feed.pk)
    assert titles("wombat") == ["First"]
    assert titles("aardvark") == []


@pytest.mark.django_db
def test_writes_outside_an_import_index_at_once(feed_server):
    """The ORM (admin, factories) computes the vector in its own statement, after an import too."""
    import_url(feed_server.serve("/feed.xml", rss(ITEMS)))  # same transaction: the deferral ended
    post = PostFactory(title="Okapi", content="<p>plain</p>")
    assert titles("okapi") == ["Okapi"]

    post.content = "<p>A narwhal.</p>"
    post.save()

    assert titles("narwhal") == ["Okapi"]
    assert unindexed(pk=post.pk) == []


@pytest.mark.django_db
def test_cleanup_indexes_the_posts_a_lost_task_left(feed_server):
    """The hourly cleanup indexes every feed's leftover posts."""
    for name in ("one", "two"):
        import_url(feed_server.serve(f"/{name}.xml", rss(ITEMS)))

    assert tasks.cleanup()["search_indexed"] == 4
    assert unindexed() == []
    assert titles("pangolin") == ["Second", "Second"]


@pytest.mark.django_db(transaction=True)
def test_an_import_with_the_broker_down_still_succeeds(feed_server, use_broker):
    """index_posts cannot be sent: the import is stored all the same, the sweep indexes it."""
    use_broker("redis://127.0.0.1:1/0")  # nothing listens there
    result = import_url(feed_server.serve("/feed.xml", rss(ITEMS)))

    assert result.run.created == 2
    assert unindexed() == ["First", "Second"]
    assert index_posts() == 2


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_indexes_an_import(feed_server, celery_worker):
    """Through the broker, a worker runs index_posts after the import: the posts are found."""
    import_url(feed_server.serve("/feed.xml", rss(ITEMS)))
    deadline = time.monotonic() + 30
    while unindexed() and time.monotonic() < deadline:
        time.sleep(0.05)

    assert titles("aardvark") == ["First"]


@pytest.mark.django_db(transaction=True)
def test_migration_0015_reverses_to_the_generated_column():
    """Backwards: the generated column again, every vector computed; forwards: the trigger."""
    FeedFactory()
    post = PostFactory(title="Okapi")
    executor = MigrationExecutor(connection)
    try:
        executor.migrate([("djangofeeds", "0014_importrun_attempts")])
        assert generated() == "s"
        assert not trigger_exists()
        assert titles("okapi") == ["Okapi"]
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert generated() == ""
    assert trigger_exists()
    assert unindexed(pk=post.pk) == []


def generated():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attgenerated FROM pg_attribute"
            " WHERE attrelid = 'djangofeeds_post'::regclass AND attname = 'search_vector'"
        )
        return cursor.fetchone()[0]


def trigger_exists():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_trigger WHERE tgname = 'djangofeeds_post_search'")
        return cursor.fetchone() is not None
