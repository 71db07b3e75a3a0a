"""Full-text search of posts, the best way each database offers: ``search_posts(queryset, text)``.

- PostgreSQL: the ``search_vector`` column (computed from title and content,
  weighted A and B; after an import, by ``indexing.index_posts``) and its GIN
  index, queried with ``plainto_tsquery``.
- MariaDB/MySQL: FULLTEXT indexes on (title, content) and (title), queried in
  natural language mode.
- SQLite: the FTS5 table ``djangofeeds_post_fts`` kept by triggers, each word
  quoted as a phrase; without FTS5, every word as a substring of title or content.

Migration 0009 (``djangofeeds.search.schema``) builds those structures. None of
them is a model field: the model stays the same on every database. Any text is
a valid query: it is never read as markup or as query syntax.
"""

import re

from django.db import connections
from django.db.models import BooleanField, Case, Expression, F, FloatField, Q, Value, When
from django.db.models.functions import Coalesce

from djangofeeds.search.schema import FTS_TABLE, SEARCH_CONFIG, sqlite_fts_ready

# Longer queries are cut (at a word): a pasted article must not become a thousand-term query.
MAX_QUERY_CHARS = 200
MAX_WORDS = 16
# Ranked results are the best of this many newest matches: ranking every post that
# contains a common word would cost a pass over most of the table.
MAX_MATCHES = 1000
# A title that matches outranks any content-only match; rank within [0, 1) comes on top.
TITLE_BONUS = 1
WORD = re.compile(r"\w+")


def clean_query(text):
    """The query as searched: printable, at most ``MAX_QUERY_CHARS``, cut at a word."""
    text = "".join(ch if ch.isprintable() else " " for ch in str(text))
    text = text.encode("utf-8", "ignore").decode("utf-8")  # lone surrogates
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS].rsplit(None, 1)[0] if " " in text else text[:MAX_QUERY_CHARS]
    return " ".join(text.split())


def query_words(text):
    """The words of a query (letters, digits), lower case, first ``MAX_WORDS`` distinct ones."""
    return list(dict.fromkeys(word.lower() for word in WORD.findall(clean_query(text))))[:MAX_WORDS]


def search_posts(queryset, text, *, also=None):
    """``queryset``'s posts matching ``text``, best first, annotated with ``search_rank``.

    Title matches come before content-only matches. The result keeps the
    queryset's ``select_related`` and ``prefetch_related`` (not ``only``/``defer``).
    On PostgreSQL the matching ids are read at once. An empty query (or one with
    no word, or only stop words) matches nothing. ``also`` (a ``Q``) adds the
    posts it selects, after the matches unless they match too.
    """
    text = clean_query(text)
    nothing = Value(0.0, FloatField())
    if not query_words(text):
        found = queryset.filter(also) if also else queryset.none()
        return found.annotate(search_rank=nothing)
    connection = connections[queryset.db]
    if connection.vendor == "postgresql":
        match, rank = postgresql(text)
    elif connection.vendor == "mysql":
        match, rank = mysql(text)
    elif connection.vendor == "sqlite" and sqlite_fts_ready(connection):
        match, rank = sqlite_fts(text)
    else:
        match, rank = substring(text)
    if also:
        match = Q(match) | also
        rank = Coalesce(rank, nothing)  # a post that does not match has no rank on MariaDB
    return ranked(queryset, match, rank, newest_first=connection.vendor != "mysql")


def ranked(queryset, match, rank, *, newest_first=True):
    """Posts that ``match``, ordered by ``rank``; among the ``MAX_MATCHES`` newest if asked."""
    if newest_first:
        # The newest matches by id: an index scan that stops early when a word is common.
        newest = queryset.filter(match).order_by("-pk").values_list("pk", flat=True)
        newest = newest[:MAX_MATCHES]
        if connections[queryset.db].vendor == "postgresql":
            # Read once, the ids serve both the page and its count (a common word's
            # scan is most of the cost), sent back as one array: 1,000 parameters
            # cost more to quote and parse than their lookups.
            newest = PostSQL('{table}."id" = ANY(%s)', [list(newest)], BooleanField())
        else:  # a subquery: SQLite may allow fewer than 1,000 parameters
            newest = Q(pk__in=newest)
        # The page is read from those ids alone: repeating the queryset's joins and
        # filters outside lets the planner scan every post to join them.
        outer = queryset.model._default_manager.using(queryset.db).filter(newest)
        outer.query.select_related = queryset.query.select_related
        outer._prefetch_related_lookups = queryset._prefetch_related_lookups
        queryset = outer
    else:  # MariaDB cannot LIMIT a subquery of IN
        queryset = queryset.filter(match)
    return queryset.annotate(search_rank=rank).order_by(
        "-search_rank", F("published_at").desc(nulls_last=True), "-pk"
    )


class PostSQL(Expression):
    """Raw SQL about the post table, with ``{table}`` standing for the alias the query gives it.

    The search structures are not model fields, so Django cannot name them; a
    subquery renames the table (``U0``), which this follows through the post's pk.
    """

    def __init__(self, template, params, output_field):
        super().__init__(output_field=output_field)
        self.template, self.params, self.pk = template, list(params), F("pk")

    def get_source_expressions(self):
        return [self.pk]

    def set_source_expressions(self, exprs):
        (self.pk,) = exprs

    def as_sql(self, compiler, connection):
        pk_sql, pk_params = compiler.compile(self.pk)
        table = pk_sql.rpartition(".")[0]
        return "(" + self.template.replace("{table}", table) + ")", [*pk_params, *self.params]


def postgresql(text):
    """(match, rank) on the ``search_vector`` column: ``plainto_tsquery`` takes any text."""
    query = "plainto_tsquery(%s::regconfig, %s)"
    vector = '{table}."search_vector"'
    match = PostSQL(f"{vector} @@ {query}", [SEARCH_CONFIG, text], BooleanField())
    # ts_rank's normalization 32 maps it into [0, 1); weight A is the title.
    rank = PostSQL(
        f"ts_rank({vector}, {query}, 32)"
        f" + {TITLE_BONUS} * (ts_filter({vector}, '{{a}}') @@ {query})::int",
        [SEARCH_CONFIG, text, SEARCH_CONFIG, text],
        FloatField(),
    )
    return match, rank


def mysql(text):
    """(match, rank) on the FULLTEXT indexes, natural language mode, words only."""
    words = " ".join(query_words(text))  # no operator reaches MATCH
    both = "MATCH({table}.`title`, {table}.`content`) AGAINST (%s IN NATURAL LANGUAGE MODE)"
    title = "MATCH({table}.`title`) AGAINST (%s IN NATURAL LANGUAGE MODE)"
    match = PostSQL(f"{both} > 0", [words], BooleanField())
    # Relevance is unbounded: r / (1 + r) maps it into [0, 1).
    rank = PostSQL(
        f"{TITLE_BONUS} * ({title} > 0) + {both} / (1 + {both})",
        [words, words, words],
        FloatField(),
    )
    return match, rank


def sqlite_fts(text):
    """(match, rank) on the FTS5 table: each word a quoted phrase, all words required."""
    phrases = " ".join(f'"{word}"' for word in query_words(text))  # \w+ holds no quote
    fts = FTS_TABLE
    ids = f"SELECT rowid FROM {fts} WHERE {fts} MATCH %s"
    match = PostSQL(f'{{table}}."id" IN ({ids})', [phrases], BooleanField())
    # bm25 is lower for better matches; -bm25 / (1 - bm25) maps it into [0, 1).
    rank = PostSQL(
        f"SELECT {TITLE_BONUS} * (SELECT count(*) FROM {fts} WHERE {fts} MATCH %s"
        f' AND rowid = {{table}}."id") - bm25({fts}, 10.0, 1.0) / (1 - bm25({fts}, 10.0, 1.0))'
        f' FROM {fts} WHERE {fts} MATCH %s AND rowid = {{table}}."id"',
        [f"title : ({phrases})", phrases],
        FloatField(),
    )
    return match, rank


def substring(text):
    """(match, rank): every word in the title or the content; all of them in the title first."""
    words = query_words(text)
    match, in_title = Q(), Q()
    for word in words:
        match &= Q(title__icontains=word) | Q(content__icontains=word)
        in_title &= Q(title__icontains=word)
    rank = Case(When(in_title, then=Value(1.0)), default=Value(0.0), output_field=FloatField())
    return match, rank
