"""Full-text search of posts on each database: ranking, imports, hostile queries, admin.

Run on SQLite (FTS5), PostgreSQL (search vector) and MariaDB (FULLTEXT) by
setting DATABASE_URL. MariaDB's FULLTEXT indexes see committed rows only, so
there every test commits (a transactional test database).
"""

import pytest
from django.conf import settings
from django.db import connection
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from djangofeeds.models import Category, Post
from djangofeeds.search import MAX_QUERY_CHARS, clean_query, search_posts, substring
from djangofeeds.search.indexing import index_posts
from djangofeeds.search.schema import FTS_TABLE, repair_sqlite, sqlite_fts_ready
from djangofeeds.views import POSTS_PER_PAGE
from localservers.feed_server import rss
from tests.factories import FeedFactory, PostFactory
from tests.support.importing import import_url

ON_MYSQL = "mysql" in settings.DATABASES["default"]["ENGINE"]
pytestmark = pytest.mark.django_db(transaction=ON_MYSQL)

HOSTILE = [
    "",
    "   ",
    '"',
    '"unbalanced',
    "a & b | !c :* d",
    "!!!",
    "-",
    "-zebra",
    "*",
    "zebra*",
    "(((",
    ")zebra(",
    "title:zebra",
    "NEAR(zebra okapi)",
    "zebra AND OR NOT",
    "\x00",
    "zebra\x00okapi",
    "'; DROP TABLE djangofeeds_post; --",
    "%_%",
    "🦓🦒 zebra 🦓",
    "the a an of",
    "<script>alert(1)</script>",
    "zebra " * 2000,
    "x" * 10_000,
    "{table} {a} %s %%",
]


def fillers(count=4):
    """Posts that match nothing searched here: MariaDB gives a word found in every row no weight."""
    return PostFactory.create_batch(count, title="Weather report", content="<p>Cloudy, mild.</p>")


def titles(queryset):
    return [post.title for post in queryset]


def test_search_posts_ranks_title_matches_above_content_only_matches():
    """A post with the word in its title comes before one with it (even often) in its content."""
    fillers()
    PostFactory(title="Savanna diary", content="<p>zebra zebra zebra, a zebra herd</p>")
    PostFactory(title="The zebra crossing", content="<p>Stripes on roads.</p>")

    found = search_posts(Post.objects.all(), "zebra")

    assert titles(found) == ["The zebra crossing", "Savanna diary"]


def test_search_posts_matches_content_inside_markup_and_ignores_case():
    """Words are found in the content's text, whatever their case, and not in other posts."""
    fillers()
    PostFactory(title="Notes", content="<p>An <em>OKAPI</em> lives in forests.</p>")

    assert titles(search_posts(Post.objects.all(), "okapi")) == ["Notes"]
    assert titles(search_posts(Post.objects.all(), "giraffe")) == []


def test_search_posts_puts_posts_with_every_word_first():
    """A post with all the query's words ranks above posts with only some of them."""
    fillers()
    PostFactory(title="Zebra facts", content="<p>Stripes.</p>")
    PostFactory(title="Zebra and okapi", content="<p>Cousins?</p>")

    found = titles(search_posts(Post.objects.all(), "okapi zebra"))

    assert found[0] == "Zebra and okapi"


def test_search_posts_keeps_the_querysets_filters():
    """Searching a queryset (the active feeds' posts) never returns posts outside it."""
    fillers()
    PostFactory(title="Zebra live", feed=FeedFactory())
    PostFactory(title="Zebra hidden", feed=FeedFactory(is_active=False))

    assert titles(search_posts(Post.objects.of_active_feeds(), "zebra")) == ["Zebra live"]


def test_search_posts_finds_imported_posts_and_follows_reimports(feed_server):
    """The importer's bulk upsert updates the index: new words are found, replaced ones are not."""
    fillers()
    items = [
        {"guid": "a", "title": "First", "description": "&lt;p&gt;An aardvark digs.&lt;/p&gt;"},
        {"guid": "b", "title": "Second", "description": "&lt;p&gt;Nothing here.&lt;/p&gt;"},
    ]
    url = feed_server.serve("/feed.xml", rss(items))
    import_url(url)
    index_posts()  # PostgreSQL: the task an import sends after it commits
    assert titles(search_posts(Post.objects.all(), "aardvark")) == ["First"]

    items[0]["description"] = "&lt;p&gt;A pangolin rolls up.&lt;/p&gt;"
    feed_server.serve("/feed.xml", rss(items))
    assert import_url(url).run.updated == 1
    index_posts()

    assert titles(search_posts(Post.objects.all(), "pangolin")) == ["First"]
    assert titles(search_posts(Post.objects.all(), "aardvark")) == []


def test_search_posts_follows_a_bulk_upsert():
    """The importer's statement (INSERT … ON CONFLICT/DUPLICATE KEY UPDATE) updates the index."""
    fillers()
    post = PostFactory(title="Plain", content="<p>An aardvark.</p>")
    post.content = "<p>A pangolin.</p>"
    features = connection.features
    unique = ["feed", "guid_hash"] if features.supports_update_conflicts_with_target else None

    Post.objects.bulk_create(
        [post], update_conflicts=True, unique_fields=unique, update_fields=["content"]
    )

    assert titles(search_posts(Post.objects.all(), "pangolin")) == ["Plain"]
    assert titles(search_posts(Post.objects.all(), "aardvark")) == []


def test_search_posts_indexes_a_huge_post():
    """A post far larger than a tsvector may hold is stored, and found by its beginning."""
    fillers()
    words = " ".join(f"w{n}x{n * 7919 % 100_003}" for n in range(120_000))  # ~1.6 MB
    PostFactory(title="Huge", content=f"<p>quagga {words}</p>")

    assert titles(search_posts(Post.objects.all(), "quagga")) == ["Huge"]


def test_search_posts_matches_nothing_for_a_query_without_words():
    """A query of punctuation or only spaces finds nothing (rather than everything)."""
    fillers()

    assert titles(search_posts(Post.objects.all(), " -*&| ")) == []


def test_clean_query_bounds_and_cleans_the_text():
    """Control characters become spaces and long text is cut at a word, within the limit."""
    assert clean_query("a\x00b\tc\n") == "a b c"
    long = clean_query("zebra " * 1000)
    assert len(long) <= MAX_QUERY_CHARS and long.endswith("zebra")


def test_substring_fallback_needs_every_word_and_ranks_titles_first():
    """Without full-text support, every word must appear; all words in the title rank first."""
    fillers()
    PostFactory(title="Okapi news", content="<p>A zebra too.</p>")
    PostFactory(title="Zebra and okapi", content="<p>Both.</p>")
    PostFactory(title="Zebra only", content="<p>Alone.</p>")

    match, rank = substring("zebra OKAPI")
    found = titles(Post.objects.filter(match).annotate(r=rank).order_by("-r", "pk"))

    assert found == ["Zebra and okapi", "Okapi news"]


def test_post_list_search_marks_matches_and_escapes_everything_else(client):
    """Results show the title and an excerpt, words in <mark>; no markup of post or query runs."""
    fillers()
    PostFactory(
        title="Zebra <b>bold</b> & co",
        content='<p>The zebra &lt;script&gt;alert(1)&lt;/script&gt; <a href="http://x.test/">run</a></p>',
    )

    response = client.get("/feeds/", {"q": "zebra <script>"})

    assert response.status_code == 200
    page = response.text
    assert "<mark>Zebra</mark> &lt;b&gt;bold&lt;/b&gt; &amp; co" in page
    marked = "&lt;<mark>script</mark>&gt;alert(1)&lt;/<mark>script</mark>&gt;"
    assert f"The <mark>zebra</mark> {marked} run" in page
    assert "<script>" not in page and "<b>" not in page
    assert 'value="zebra &lt;script&gt;"' in page  # the search box


def test_post_list_search_pages_keep_the_query(client):
    """The next page of results is of the same search."""
    fillers()
    feed = FeedFactory()
    PostFactory.create_batch(30, feed=feed, title="Zebra sighting")

    first = client.get("/feeds/", {"q": "zebra"})
    second = client.get("/feeds/", {"q": "zebra", "page": 2})

    assert 'href="?q=zebra&amp;page=2"' in first.text
    assert len(first.context["page"]) == 25 and len(second.context["page"]) == 5
    assert "30 results" in first.text


def test_post_list_has_a_search_form(client):
    """The post list offers a GET search box that posts back to itself."""
    response = client.get("/feeds/")

    assert '<form class="search" role="search" method="get" action="/feeds/">' in response.text
    assert 'name="q"' in response.text


@pytest.mark.parametrize("query", HOSTILE, ids=range(len(HOSTILE)))
def test_post_list_search_answers_any_query(client, query):
    """Quotes, operators, NUL, 10 KB, emoji, stop words: a page of results or none, never a 500."""
    fillers()
    PostFactory(title="Zebra", content="<p>zebra okapi</p>")

    response = client.get("/feeds/", {"q": query})

    assert response.status_code == 200


@pytest.mark.parametrize("raw", ["q=%ED%A0%80+zebra", "q=%FF%FE%00", "q=zebra&q=okapi", "q"])
def test_post_list_search_answers_any_query_string(client, raw):
    """Bytes that are not UTF-8 (a lone surrogate's encoding), repeated or bare ``q``: a page."""
    fillers()

    assert client.get(f"/feeds/?{raw}").status_code == 200


@hypothesis_settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(max_size=300))
def test_search_posts_accepts_any_text(query):
    """Any text at all is a query: the search runs (a list, maybe empty), never raises."""
    found = search_posts(Post.objects.all(), query + "\ud800")  # a lone surrogate too

    assert isinstance(list(found), list)


def test_admin_post_search_uses_the_full_text_search(admin_client):
    """The admin's post search finds content words (the old one did not), title matches first."""
    fillers()
    PostFactory(title="Savanna diary", content="<p>A zebra herd.</p>")
    PostFactory(title="The zebra crossing", content="<p>Stripes.</p>")
    changelist = reverse("admin:djangofeeds_post_changelist")

    results = admin_client.get(changelist, {"q": "zebra"}).context["cl"].result_list
    by_url = admin_client.get(changelist, {"q": "http://example.com/posts/none"})

    assert titles(results) == ["The zebra crossing", "Savanna diary"]
    assert by_url.status_code == 200 and list(by_url.context["cl"].result_list) == []


def test_admin_post_search_finds_a_post_by_its_url(admin_client):
    """A URL typed in the admin's search finds the post with that link."""
    post = PostFactory(link="http://example.com/zebra?id=1")
    changelist = reverse("admin:djangofeeds_post_changelist")

    results = admin_client.get(changelist, {"q": " http://example.com/zebra?id=1 "})

    assert list(results.context["cl"].result_list) == [post]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 triggers")
def test_repair_sqlite_restores_triggers_a_table_rebuild_dropped():
    """A table rebuild (an altering migration) drops the triggers: repair restores, re-indexes."""
    assert sqlite_fts_ready(connection)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TRIGGER {FTS_TABLE}_insert")
    PostFactory(title="Zebra written while the trigger was gone")
    fillers()

    assert repair_sqlite(connection) is True
    PostFactory(title="Zebra written after")

    assert set(titles(search_posts(Post.objects.all(), "zebra"))) == {
        "Zebra written while the trigger was gone",
        "Zebra written after",
    }
    assert repair_sqlite(connection) is False  # nothing missing now


def test_admin_post_search_keeps_a_chosen_column_order(admin_client):
    """Sorting the results by a column (the title) overrides the best-match order."""
    fillers()
    PostFactory(title="A zebra", content="<p>Stripes.</p>")
    PostFactory(title="B", content="<p>A zebra.</p>")
    changelist = reverse("admin:djangofeeds_post_changelist")

    results = admin_client.get(changelist, {"q": "zebra", "o": "-1"}).context["cl"].result_list

    assert titles(results) == ["B", "A zebra"]


def test_admin_post_search_finds_the_posts_of_a_category_named_so(admin_client):
    """A category's exact name finds its posts too, after the posts whose text matches."""
    fillers()
    savanna = Category.objects.create(name="Savanna")
    tagged = PostFactory(title="Tagged only", content="<p>Grass.</p>")
    tagged.categories.add(savanna)
    PostFactory(title="Savanna at dawn", content="<p>Light.</p>")
    changelist = reverse("admin:djangofeeds_post_changelist")

    results = admin_client.get(changelist, {"q": "savanna"}).context["cl"].result_list

    assert titles(results) == ["Savanna at dawn", "Tagged only"]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite without FTS5")
def test_search_posts_falls_back_to_substrings_without_fts5():
    """On an SQLite without FTS5 (no FTS table), search still works, by substrings."""
    with connection.cursor() as cursor:  # as migration 0009 leaves such a database
        for kind in ("insert", "delete", "update"):
            cursor.execute(f"DROP TRIGGER {FTS_TABLE}_{kind}")
        cursor.execute(f"DROP TABLE {FTS_TABLE}")
    fillers()
    PostFactory(title="Savanna diary", content="<p>A zebra herd.</p>")
    PostFactory(title="The zebra crossing", content="<p>Stripes.</p>")

    assert not sqlite_fts_ready(connection)
    assert titles(search_posts(Post.objects.all(), "ZEBRA")) == [
        "The zebra crossing",
        "Savanna diary",
    ]


def toast_bytes():
    """Bytes of the values the post table moved out of their rows (its TOAST table)."""
    with connection.cursor() as cursor:
        table = Post._meta.db_table
        cursor.execute("SELECT reltoastrelid::regclass FROM pg_class WHERE relname = %s", [table])
        (toast,) = cursor.fetchone()
        cursor.execute(f"SELECT coalesce(sum(length(chunk_data)), 0) FROM {toast}")
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's search vector")
def test_a_posts_search_vector_stays_in_its_row():
    """A summary-sized post's vector is kept in its row, where the newest-matches scan and
    the ranking read it, not moved out to the TOAST table (migration 0010)."""
    syllables = [c + v for c in "bdfgklmnprtvz" for v in "aiou"]
    words = [a + b + c for a in syllables[:8] for b in syllables[8:20] for c in syllables[20:22]]
    content = "".join(f"<p>{' '.join(words[i : i + 50])}</p>" for i in range(0, 150, 50))
    before = toast_bytes()

    post = PostFactory(title="Savanna diary of a zebra herd", content=content)

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_size(search_vector) FROM djangofeeds_post WHERE id = %s", [post.pk]
        )
        (vector_bytes,) = cursor.fetchone()
    assert toast_bytes() - before < vector_bytes  # the content may go out, the vector stays
    assert titles(search_posts(Post.objects.all(), words[120])) == [post.title]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the ids as one array")
def test_a_search_page_sends_its_matches_ids_as_one_parameter(client):
    """The newest matches are read once and sent back as one array, not a parameter each."""
    PostFactory.create_batch(60, title="Zebra", content="<p>Stripes.</p>")
    sent = []

    def record(execute, sql, params, many, context):
        sent.append(len(params or ()))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        response = client.get(reverse("djangofeeds:post_list"), {"q": "zebra"})

    assert response.status_code == 200 and response.context["page"].paginator.count == 60
    # The page's 25 posts' media are asked for by id; the 60 matches as one array.
    assert sent and max(sent) <= POSTS_PER_PAGE, sent
