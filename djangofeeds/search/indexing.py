"""PostgreSQL's search vectors computed after an import, not in it (migration 0015).

An import sets ``DEFER_SETTING`` around its post writes, so the trigger leaves
their vectors NULL, and queues ``djangofeeds.tasks.index_posts`` for the feed
once the import commits; the hourly ``cleanup`` indexes whatever a lost task
left. Until then such a post is not found by search. Other databases index in
the same statement as ever: nothing here does anything there.
"""

from celery import current_app
from django.db import connection, transaction

from djangofeeds.search.schema import DEFER_SETTING, POST_TABLE, vector_sql

INDEX_POSTS = "djangofeeds.tasks.index_posts"
# Posts per UPDATE, each its own transaction: short row locks, steady progress.
INDEX_BATCH = 500


def deferrable():
    """Whether this database indexes after an import (PostgreSQL: to_tsvector is costly)."""
    return connection.vendor == "postgresql"


def defer(on):
    """Leave (``on``) or keep computing the vectors of posts this transaction writes."""
    with connection.cursor() as cursor:
        # set_config(..., true) is SET LOCAL: it ends with the transaction at the latest.
        cursor.execute("SELECT set_config(%s, %s, true)", [DEFER_SETTING, "on" if on else "off"])


def index_later(feed_id):
    """Queue ``index_posts(feed_id)`` once the transaction commits (broker down: logged)."""
    transaction.on_commit(current_app.signature(INDEX_POSTS, args=(feed_id,)).delay, robust=True)


def index_posts(feed_id=None, batch_size=INDEX_BATCH):
    """Compute the missing search vectors of a feed's posts (of all with no feed); how many.

    Batches of ``batch_size`` posts, each its own transaction; posts another
    transaction holds are skipped (it is writing them: its own indexing follows).
    """
    if not deferrable():
        return 0
    where = "search_vector IS NULL" + (" AND feed_id = %s" if feed_id is not None else "")
    sql = f"""UPDATE {POST_TABLE} SET search_vector = {vector_sql()} WHERE id IN (
        SELECT id FROM {POST_TABLE} WHERE {where} LIMIT %s FOR UPDATE SKIP LOCKED)"""
    params = [feed_id, batch_size] if feed_id is not None else [batch_size]
    indexed = 0
    while True:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
            count = cursor.rowcount
        indexed += count
        if count < batch_size:
            return indexed
