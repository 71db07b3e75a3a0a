"""Each database's search structures, built by migrations 0009, 0010 and 0015 (see ``search.py``).

PostgreSQL: a ``search_vector`` column, kept in the post's row where it fits
(0010). Migrations 0009-0014 made it a stored generated column; since 0015 a
trigger keeps it, so that an import can leave it NULL for ``index_posts`` to
fill after the import (``search.indexing``); every other writer (the admin, raw
SQL, a bulk load) still keeps it right in the same statement. MariaDB:
FULLTEXT indexes; SQLite: an external-content FTS5 table kept by triggers (when
SQLite has FTS5).
"""

from django.db import DatabaseError, transaction

# The text search configuration of PostgreSQL's column and queries (they must agree).
SEARCH_CONFIG = "english"
# The first characters of a post's content that are indexed: a tsvector holds at
# most 1 MB, and an import must not fail on a huge post.
INDEXED_CHARS = 100_000
FTS_TABLE = "djangofeeds_post_fts"
POST_TABLE = "djangofeeds_post"


def vector_sql(title="title", content="content"):
    """The SQL expression of a post's search vector (one place: column, trigger and indexer)."""
    config, chars = f"'{SEARCH_CONFIG}'::regconfig", INDEXED_CHARS
    return f"""setweight(to_tsvector({config}, left({title}, {chars})), 'A')
        || setweight(to_tsvector({config}, left({content}, {chars})), 'B')"""


POSTGRESQL = [
    f"""ALTER TABLE {POST_TABLE} ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        {vector_sql()}
    ) STORED""",
    f"CREATE INDEX post_search_idx ON {POST_TABLE} USING gin (search_vector)",
]
POSTGRESQL_REVERSE = [
    "DROP INDEX IF EXISTS post_search_idx",
    f"ALTER TABLE {POST_TABLE} DROP COLUMN IF EXISTS search_vector",
]
# PostgreSQL keeps a post's search vector in its row when it fits, compressed with
# lz4 where the server has it (pglz hardly shrinks a vector): the newest-matches scan
# and the ranking read the vector of every candidate post, and a vector moved out to
# the TOAST table costs a look-up there each time (6x slower on bench_search's posts).
# The content, read for a page's 25 posts only, moves out first. Rows written before
# migration 0010 keep their layout until they are written again.
POSTGRESQL_VECTOR_IN_ROW = f"ALTER TABLE {POST_TABLE} ALTER COLUMN search_vector SET STORAGE MAIN"
POSTGRESQL_VECTOR_LZ4 = f"ALTER TABLE {POST_TABLE} ALTER COLUMN search_vector SET COMPRESSION lz4"
POSTGRESQL_VECTOR_REVERSE = [
    f"ALTER TABLE {POST_TABLE} ALTER COLUMN search_vector SET STORAGE EXTENDED",
    f"ALTER TABLE {POST_TABLE} ALTER COLUMN search_vector SET COMPRESSION DEFAULT",
]
MYSQL = [
    f"ALTER TABLE {POST_TABLE} ADD FULLTEXT INDEX post_search_ft (title, content)",
    f"ALTER TABLE {POST_TABLE} ADD FULLTEXT INDEX post_search_title_ft (title)",
]
MYSQL_REVERSE = [
    f"ALTER TABLE {POST_TABLE} DROP INDEX post_search_title_ft",
    f"ALTER TABLE {POST_TABLE} DROP INDEX post_search_ft",
]
SQLITE_TABLE = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(title, content,"
    f" content='{POST_TABLE}', content_rowid='id',"
    " tokenize='porter unicode61 remove_diacritics 2')"
)
# Django rebuilds a SQLite table to alter it, which drops its triggers:
# ``repair_sqlite`` (after every migrate) puts them back.
SQLITE_TRIGGERS = {
    f"{FTS_TABLE}_insert": f"""CREATE TRIGGER {FTS_TABLE}_insert AFTER INSERT ON {POST_TABLE}
    BEGIN
        INSERT INTO {FTS_TABLE}(rowid, title, content) VALUES (new.id, new.title, new.content);
    END""",
    f"{FTS_TABLE}_delete": f"""CREATE TRIGGER {FTS_TABLE}_delete AFTER DELETE ON {POST_TABLE}
    BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, content)
        VALUES ('delete', old.id, old.title, old.content);
    END""",
    f"{FTS_TABLE}_update": f"""CREATE TRIGGER {FTS_TABLE}_update
    AFTER UPDATE OF title, content ON {POST_TABLE}
    BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, content)
        VALUES ('delete', old.id, old.title, old.content);
        INSERT INTO {FTS_TABLE}(rowid, title, content) VALUES (new.id, new.title, new.content);
    END""",
}


def sqlite_has_fts5(connection):
    """Whether this SQLite can create FTS5 tables (an optional part of its build)."""
    try:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute("CREATE VIRTUAL TABLE temp.djangofeeds_fts5_probe USING fts5(x)")
            cursor.execute("DROP TABLE temp.djangofeeds_fts5_probe")
    except DatabaseError:
        return False
    return True


def sqlite_objects(connection):
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE name LIKE %s", [f"{FTS_TABLE}%"])
        return {name for (name,) in cursor.fetchall()}


def sqlite_fts_ready(connection):
    """Whether the FTS5 table exists (migration 0009 made it: SQLite has FTS5)."""
    return FTS_TABLE in sqlite_objects(connection)


def repair_sqlite(connection):
    """Recreate missing triggers of an existing FTS5 table, and re-index; True if it had to."""
    existing = sqlite_objects(connection)
    missing = [name for name in SQLITE_TRIGGERS if name not in existing]
    if FTS_TABLE not in existing or not missing:
        return False
    with connection.cursor() as cursor:
        for name in missing:
            cursor.execute(SQLITE_TRIGGERS[name])
        cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")
    return True


def create(apps, schema_editor):
    """Migration 0009, forwards: the structures of this database (none on others)."""
    connection = schema_editor.connection
    if connection.vendor == "postgresql":
        statements = POSTGRESQL
    elif connection.vendor == "mysql":
        statements = MYSQL
    elif connection.vendor == "sqlite" and sqlite_has_fts5(connection):
        statements = [SQLITE_TABLE, *SQLITE_TRIGGERS.values()]
        statements.append(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")
    else:  # no FTS5 (or another database): search falls back to substrings
        return
    for sql in statements:
        schema_editor.execute(sql, params=None)


def drop(apps, schema_editor):
    """Migration 0009, backwards."""
    connection = schema_editor.connection
    if connection.vendor == "postgresql":
        statements = POSTGRESQL_REVERSE
    elif connection.vendor == "mysql":
        statements = MYSQL_REVERSE
    elif connection.vendor == "sqlite":
        statements = [f"DROP TRIGGER IF EXISTS {name}" for name in SQLITE_TRIGGERS]
        statements.append(f"DROP TABLE IF EXISTS {FTS_TABLE}")
    else:
        return
    for sql in statements:
        schema_editor.execute(sql, params=None)


def keep_vector_in_row(apps, schema_editor):
    """Migration 0010, forwards: the search vector kept in its row (PostgreSQL only)."""
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    schema_editor.execute(POSTGRESQL_VECTOR_IN_ROW, params=None)
    try:
        with transaction.atomic(using=connection.alias):
            schema_editor.execute(POSTGRESQL_VECTOR_LZ4, params=None)
    except DatabaseError:  # a server built without lz4: pglz, as before
        pass


def vector_as_before(apps, schema_editor):
    """Migration 0010, backwards."""
    if schema_editor.connection.vendor == "postgresql":
        for sql in POSTGRESQL_VECTOR_REVERSE:
            schema_editor.execute(sql, params=None)


# Migration 0015: the generated column becomes a plain one, kept by a trigger that
# leaves it NULL in a transaction that defers it (``search.indexing.DEFER_SETTING``):
# to_tsvector is the import's largest cost on PostgreSQL (105 ms of a real 681 KiB
# feed), so an import defers it to ``index_posts``, after the import commits.
TRIGGER = "djangofeeds_post_search"
TRIGGER_FUNCTION = "djangofeeds_post_search_vector"
DEFER_SETTING = "djangofeeds.defer_search"
# The posts still to index, found without a scan of every post (the sweep's query).
PENDING_INDEX = "post_search_pending_idx"
POSTGRESQL_DEFERRED = [
    f"ALTER TABLE {POST_TABLE} ALTER COLUMN search_vector DROP EXPRESSION",  # values kept
    f"""CREATE OR REPLACE FUNCTION {TRIGGER_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF current_setting('{DEFER_SETTING}', true) = 'on' THEN
            NEW.search_vector := NULL;
        ELSE
            NEW.search_vector := {vector_sql("NEW.title", "NEW.content")};
        END IF;
        RETURN NEW;
    END
    $$""",
    f"""CREATE TRIGGER {TRIGGER} BEFORE INSERT OR UPDATE OF title, content ON {POST_TABLE}
    FOR EACH ROW EXECUTE FUNCTION {TRIGGER_FUNCTION}()""",
    f"CREATE INDEX {PENDING_INDEX} ON {POST_TABLE} (feed_id) WHERE search_vector IS NULL",
]
# Back to the generated column: PostgreSQL cannot make a plain column generated,
# so the column is made again (every vector computed again, none left NULL).
POSTGRESQL_DEFERRED_REVERSE = [
    f"DROP TRIGGER IF EXISTS {TRIGGER} ON {POST_TABLE}",
    f"DROP FUNCTION IF EXISTS {TRIGGER_FUNCTION}()",
    *POSTGRESQL_REVERSE,  # the column with its indexes
    *POSTGRESQL,
]


def defer_indexing(apps, schema_editor):
    """Migration 0015, forwards: the vector kept by a trigger an import can defer (PostgreSQL)."""
    if schema_editor.connection.vendor == "postgresql":
        for sql in POSTGRESQL_DEFERRED:
            schema_editor.execute(sql, params=None)


def index_inline(apps, schema_editor):
    """Migration 0015, backwards: the generated column of 0009, kept in its row as 0010 does."""
    if schema_editor.connection.vendor == "postgresql":
        for sql in POSTGRESQL_DEFERRED_REVERSE:
            schema_editor.execute(sql, params=None)
        keep_vector_in_row(apps, schema_editor)
