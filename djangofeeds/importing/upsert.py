"""Posts written in one statement per batch: insert or update, each database's way.

The storage stage's SQL (``storage.PostStore`` calls ``upsert_posts``); the models
hold no statement of their own.
"""

import json
from datetime import datetime

from django.db import connections, models, router

from djangofeeds.models import Post


def upsert_posts(posts, update_fields, *, using=None):
    """Insert ``posts``, or update ``update_fields`` of those whose (feed, guid) exists;
    return them with their primary keys.

    The SQL of the storage stage (the model holds no statement of its own).

    MariaDB and MySQL's ``ON DUPLICATE KEY UPDATE`` names no conflict target
    (the (feed, guid_hash) key is the only unique one a new post can hit),
    and MySQL returns no ids from it: they are read back by guid.
    """
    using = using or router.db_for_write(Post)  # as Post.objects' writes go
    connection = connections[using]
    if connection.vendor == "postgresql":
        return upsert_json(connection, posts, update_fields)
    if connection.features.supports_update_conflicts_with_target:
        return Post.objects.using(using).bulk_create(
            posts,
            update_conflicts=True,
            unique_fields=["feed", "guid_hash"],
            update_fields=update_fields,
        )
    stored = Post.objects.using(using).bulk_create(
        posts, update_conflicts=True, update_fields=update_fields
    )
    missing = [post for post in stored if post.pk is None]
    if missing:
        rows = (
            Post.objects.using(using)
            .filter(
                feed_id__in={post.feed_id for post in missing},
                guid_hash__in={post.guid_hash for post in missing},
            )
            .values_list("feed_id", "guid_hash", "pk")
        )
        pks = {(feed_id, guid_hash): pk for feed_id, guid_hash, pk in rows}
        for post in missing:
            post.pk = pks[post.feed_id, post.guid_hash]
    return stored


def upsert_json(connection, posts, update_fields):
    """PostgreSQL: one ``INSERT ... SELECT FROM json_to_recordset(...) ON CONFLICT``.

    The statement ``bulk_create`` sends on PostgreSQL, without passing each
    value through its field's preparation: a post's attributes are
    database-ready already (text, aware datetimes, the feed's id). The rows
    travel as one JSON document, made by the json module's C encoder:
    psycopg dumps array parameters in Python, value by value, and a
    50-post import's arrays cost 2.2 ms of the worker's CPU, its JSON
    0.6 ms (docs/dev/performance.md). Text columns are read as ``text``, so a
    value too long for its ``varchar`` is refused by the INSERT, not cut.
    """
    meta = Post._meta
    fields = [field for field in meta.concrete_fields if not field.primary_key]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in fields)
    record = ", ".join(
        f"{quote(field.column)} "
        f"{'text' if isinstance(field, models.CharField) else field.db_type(connection)}"
        for field in fields
    )
    # get_field() may return a relation, which has no column: never for these names.
    updates = ", ".join(
        f"{quote(column)} = EXCLUDED.{quote(column)}"
        for column in (meta.get_field(name).column for name in update_fields)
    )
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({columns}) "
        f"SELECT {columns} FROM json_to_recordset(%s::json) AS posts({record}) "
        f"ON CONFLICT ({quote('feed_id')}, {quote('guid_hash')}) DO UPDATE SET {updates} "
        f"RETURNING {quote(meta.pk.column)}"
    )
    pairs = [(field.column, field.attname) for field in fields]
    rows = [{column: getattr(post, name) for column, name in pairs} for post in posts]
    document = json.dumps(rows, ensure_ascii=False, default=json_value)
    with connection.cursor() as cursor:
        cursor.execute(sql, [document])
        pks = [pk for (pk,) in cursor.fetchall()]
    for post, pk in zip(posts, pks, strict=True):
        post.pk = pk  # what store_media needs of them
    return posts


def json_value(value):
    """A value the json module cannot write: a datetime, in ISO 8601 (its offset kept)."""
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a post's column value")
