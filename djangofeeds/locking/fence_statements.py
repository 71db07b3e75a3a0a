"""The fence's SQL, written by hand where the ORM cannot say it; ``locking.fence`` runs it.

``UPDATE … RETURNING`` (a fencing number and the row, one feed or several),
``WITH updated AS (UPDATE …) INSERT … SELECT`` (a run saved in the statement
of its feed's fenced write, one feed or a batch's) and ``INSERT … SELECT`` by
URL (a skip's run). Django's ORM has no ``UPDATE … RETURNING``, no
data-modifying ``WITH`` and no ``INSERT … SELECT``. A statement that depends
only on the database and the columns is built once and kept in a module-level
cache keyed by them (``functools.lru_cache``), not per call (docs/dev/performance.md);
nothing is kept on the connections. A run saved here comes back as a new
instance, built as Django builds one read from the database (``from_db``).
"""

import json
from functools import lru_cache

from django.db import connections, models, router
from django.db.models.sql import UpdateQuery

from djangofeeds.models import Feed, ImportRun


def plain(value):
    """Whether ``value`` is a value to store, not an expression (``F()``) the database computes."""
    return not hasattr(value, "resolve_expression")


# The fence statements: next_fence's (one URL) and next_fences' (a list of URLs).


@lru_cache(maxsize=128)
def fence_statement(alias, vendor, many):
    """``next_fence``'s SQL, the attribute names of its columns, and their converters.

    With ``many``, the statement of ``next_fences``: its one parameter is the
    list of URLs (PostgreSQL: an array; SQLite: a JSON array). The converters
    are ``(position, [(function, of_ops)], column)``: ``of_ops`` marks a method
    of the backend's operations, kept unbound and called with the operations
    of the connection at hand (``read``), so that no connection is kept.
    """
    connection = connections[alias]
    quote, meta = connection.ops.quote_name, Feed._meta
    fields = meta.concrete_fields
    table, fence, url = quote(meta.db_table), quote("fence"), quote("url")
    returning = f"RETURNING {', '.join(quote(field.column) for field in fields)}"
    update = f"UPDATE {table} SET {fence} = {fence} + 1 WHERE"
    in_list = "= ANY(%s)" if vendor == "postgresql" else "IN (SELECT value FROM json_each(%s))"
    sql = f"{update} {url} {in_list if many else '= %s'} {returning}"
    compiler = connection.ops.compiler("SQLCompiler")(models.sql.Query(Feed), connection, alias)
    columns = [field.get_col(meta.db_table) for field in fields]
    converters = tuple(
        (position, tuple(unbound(function, connection.ops) for function in functions), column)
        for position, (functions, column) in compiler.get_converters(columns).items()
    )
    return sql, tuple(field.attname for field in fields), converters


def unbound(function, ops):
    """A converter of ``fence_statement``: ``(function, of_ops)``, unbound from ``ops``."""
    if getattr(function, "__self__", None) is ops:
        return function.__func__, True
    return function, False


def bump_fences(db, urls):
    """Run the fence statement (``fence_statement``) of ``urls``, a URL or a list; the feeds.

    The rows are read as ``raw()`` reads them (the database's converters,
    then ``from_db``) from a statement and converters made once: ``raw()``
    works them out again each time, most of the call's CPU.
    """
    connection = connections[db]
    many = not isinstance(urls, str)
    parameter = urls
    if many:
        parameter = list(urls) if connection.vendor == "postgresql" else json.dumps(list(urls))
    sql, names, converters = fence_statement(db, connection.vendor, many)
    with connection.cursor() as cursor:
        cursor.execute(sql, [parameter])
        rows = cursor.fetchall()
    return [Feed.from_db(db, names, read(row, converters, connection)) for row in rows]


def read(row, converters, connection):
    """``row``'s values as ``SQLCompiler.apply_converters`` makes them."""
    values, ops = list(row), connection.ops
    for position, functions, column in converters:
        value = values[position]
        for function, of_ops in functions:
            if of_ops:
                value = function(ops, value, column, connection)
            else:
                value = function(value, column, connection)
        values[position] = value
    return values


# A run saved with its feed's fenced write (PostgreSQL), and a skip's run.


def run_fields():
    """The fields a run's INSERT writes, its feed first (not its id: the database's)."""
    meta = ImportRun._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key and f.attname != "feed_id"]
    return [meta.get_field("feed"), *fields]


def saved_run(run, pk, db):
    """``run`` as inserted with the id ``pk``: a new instance, as Django reads a saved row.

    Its cached relations (its feed) come along: nothing is read again.
    """
    fields = ImportRun._meta.concrete_fields
    values = [pk if field.primary_key else getattr(run, field.attname) for field in fields]
    saved = ImportRun.from_db(db, [field.attname for field in fields], values)
    for field in fields:
        if field.is_relation and field.is_cached(run):
            field.set_cached_value(saved, field.get_cached_value(run))
    return saved


def update_statement(pk, fence, changes, connection):
    """The SQL and parameters of the ``UPDATE`` of ``Feed.objects.fenced(pk, fence)``.

    When every change is a plain value, the statement is written here, as
    Django would write it (``get_db_prep_save``), without building a queryset
    and compiling it: that took nearly half of a 304's write CPU in a worker
    (docs/dev/performance.md, fourth round). Expressions are compiled by Django.
    """
    fields = [Feed._meta.get_field(name) for name in changes]  # in the order of changes
    if not all(map(plain, changes.values())) or any(
        field.is_relation or hasattr(field, "get_placeholder") for field in fields
    ):
        rows = Feed.objects.using(connection.alias).fenced(pk, fence)
        update = rows.query.chain(UpdateQuery)
        update.add_update_values(changes)
        return update.get_compiler(rows.db).as_sql()
    quote = connection.ops.quote_name
    where = [(Feed._meta.pk.column, pk), *([("fence", fence)] if fence is not None else [])]
    sql = (
        f"UPDATE {quote(Feed._meta.db_table)} "
        f"SET {', '.join(f'{quote(field.column)} = %s' for field in fields)} "
        f"WHERE {' AND '.join(f'{quote(column)} = %s' for column, _ in where)}"
    )
    values = [
        field.get_db_prep_save(value, connection)
        for field, value in zip(fields, changes.values(), strict=True)
    ]
    return sql, [*values, *(value for _, value in where)]


def insert_run_with_update(run, pk, fence, changes, db):
    """Save the new ``run`` in the statement that updates its feed; the run saved, or None.

    ``WITH updated AS (UPDATE … RETURNING id) INSERT … SELECT … FROM
    updated``: the feed ``pk`` under ``fence`` gets ``changes``, and the run
    is inserted for the row updated, in one round trip and one implicit
    transaction, instead of BEGIN, UPDATE, INSERT and COMMIT (a 304's whole
    record; docs/dev/performance.md). When no row matches (a newer fence),
    nothing is written and None is returned. PostgreSQL only.
    """
    connection = connections[db]
    update_sql, update_params = update_statement(pk, fence, changes, connection)
    returning = f"RETURNING {connection.ops.quote_name(Feed._meta.pk.column)}"
    updated = (f"WITH updated AS ({update_sql} {returning}) ", update_params)
    inserted = insert_from(run, db, "FROM updated", with_=updated)
    return None if inserted is None else inserted[0]


def insert_run_for_url(run, url, db=None):
    """Save the new ``run`` for the feed of ``url`` in one statement; the run saved, or None.

    ``INSERT ... SELECT`` from the feed by its URL, instead of a SELECT of
    the feed and an INSERT: a skip's record is one round trip (under
    contention each blocking call waits for a core again;
    docs/dev/performance.md). The run's feed comes with its id and URL loaded,
    its other fields when read. None, nothing written, when no feed has
    ``url``, and on MariaDB and MySQL (no ``INSERT ... RETURNING`` used
    there): the caller saves the run itself.
    """
    db = db or router.db_for_write(ImportRun)
    connection = connections[db]
    if connection.vendor == "mysql" or not connection.features.can_return_columns_from_insert:
        return None
    quote = connection.ops.quote_name
    by_url = f"FROM {quote(Feed._meta.db_table)} WHERE {quote('url')} = %s"
    inserted = insert_from(run, db, by_url, params=[url])
    if inserted is None:
        return None
    saved, feed_id = inserted
    saved.feed = Feed.from_db(db, ["id", "url"], [feed_id, url])
    return saved


def insert_from(run, db, source, *, with_=("", ()), params=()):
    """Insert the new ``run`` for the feed row that ``source`` yields, in one statement.

    ``[WITH …] INSERT … SELECT id, <the run's values> <source>``: the one
    statement of ``insert_run_for_url`` and ``insert_run_with_update``.
    Returns ``(the run saved, its feed's id)``, or None (nothing written)
    when ``source`` yields no row.
    """
    connection = connections[db]
    meta, quote = ImportRun._meta, connection.ops.quote_name
    fields = run_fields()[1:]
    columns = ", ".join(quote(column) for column in ["feed_id", *(f.column for f in fields)])
    with_sql, with_params = with_
    sql = (
        f"{with_sql}INSERT INTO {quote(meta.db_table)} ({columns}) "
        f"SELECT {quote(Feed._meta.pk.column)}, {', '.join(['%s'] * len(fields))} {source} "
        f"RETURNING {quote(meta.pk.column)}, {quote('feed_id')}"
    )
    values = [f.get_db_prep_save(getattr(run, f.attname), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*with_params, *values, *params])
        row = cursor.fetchone()
    if row is None:
        return None
    pk, feed_id = row
    return saved_run(run, pk, db), feed_id


@lru_cache(maxsize=128)
def updates_statement(alias, vendor, names):
    """``insert_runs_with_updates``' SQL for changes of the Feed columns ``names``; its columns.

    Returns ``(sql, feed_columns, run_columns)``: the keys of the JSON rows
    of its two parameters. A feed's row: ``id``, ``fence``, then the columns
    of ``names``; a run's: its feed's column, then ``(column, attname)`` of
    each of ``run_fields``' others. Dates are read as their ``str()``, as
    PostgreSQL reads them. Made once per database and set of columns.
    """
    connection = connections[alias]
    quote = connection.ops.quote_name
    feed_meta, run_meta = Feed._meta, ImportRun._meta
    feed_fields = [feed_meta.pk, feed_meta.get_field("fence")]
    feed_fields += [feed_meta.get_field(name) for name in names]
    fields = run_fields()

    def rows(fields, alias):
        columns = ", ".join(
            f"{quote(field.column)} {field.cast_db_type(connection)}" for field in fields
        )
        return f"json_to_recordset(%s::json) AS {alias} ({columns})"

    table, pk, fence = (quote(feed_meta.db_table), quote(feed_meta.pk.column), quote("fence"))
    run_columns = [quote(field.column) for field in fields]
    changed = [quote(field.column) for field in feed_fields[2:]]
    sets = ", ".join(f"{column} = v.{column}" for column in changed)
    sql = (
        f"WITH updated AS (UPDATE {table} SET {sets} FROM {rows(feed_fields, 'v')} "
        f"WHERE {table}.{pk} = v.{pk} AND {table}.{fence} = v.{fence} RETURNING {table}.{pk}) "
        f"INSERT INTO {quote(run_meta.db_table)} ({', '.join(run_columns)}) "
        f"SELECT {', '.join(f'r.{column}' for column in run_columns)} "
        f"FROM {rows(fields, 'r')} JOIN updated ON updated.{pk} = r.{run_columns[0]} "
        f"RETURNING {quote(run_meta.pk.column)}, {run_columns[0]}"
    )
    feed_columns = tuple(field.column for field in feed_fields)
    run_columns = (fields[0].column, *((field.column, field.attname) for field in fields[1:]))
    return sql, feed_columns, run_columns


def insert_runs_with_updates(writes, db):
    """``insert_run_with_update`` for several feeds in one statement: ``{feed id: run saved}``.

    ``writes`` are ``(run, pk, fence, changes)``, their ``changes`` plain
    values of the same columns (a batch's 304s). The feeds' updates and the
    runs are two JSON parameters, read by ``json_to_recordset``: ``WITH
    updated AS (UPDATE … FROM … RETURNING id) INSERT … SELECT … JOIN
    updated``, one round trip and one commit for them all (as arrays, the
    client-side adaptation of each column cost as much as the round trips
    saved). A feed whose fence is no longer ``fence`` is left out, its run
    not written. PostgreSQL only.
    """
    connection = connections[db]
    names = tuple(writes[0][3])
    sql, feed_columns, run_columns = updates_statement(db, connection.vendor, names)
    (pk_column, fence_column, *changed), run_names = feed_columns, run_columns[1:]
    feeds, runs = [], []
    for run, pk, fence, changes in writes:
        row = {pk_column: pk, fence_column: fence}
        row.update(zip(changed, (changes[name] for name in names), strict=True))
        feeds.append(row)
        row = {run_columns[0]: pk}
        row.update((column, getattr(run, attname)) for column, attname in run_names)
        runs.append(row)
    with connection.cursor() as cursor:
        cursor.execute(sql, [json.dumps(feeds, default=str), json.dumps(runs, default=str)])
        inserted = {feed_id: pk for pk, feed_id in cursor.fetchall()}
    return {
        pk: saved_run(run, inserted[pk], db)
        for run, pk, _fence, _changes in writes
        if pk in inserted
    }
