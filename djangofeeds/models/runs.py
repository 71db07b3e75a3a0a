"""The record of every import attempt, and of every refresh round that queued them."""

import json

from django.db import connections, models
from django.db.models.sql import UpdateQuery
from django.utils import timezone
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from djangofeeds.models.feeds import Feed, Outcome


class ImportRunQuerySet(models.QuerySet):
    def can_insert_with_update(self):
        """Whether ``insert_with_update`` works here: PostgreSQL's data-modifying ``WITH``."""
        return connections[self.db].vendor == "postgresql"

    def insert_with_update(self, run, pk, fence, changes):
        """Save the new ``run`` in the statement that updates its feed; whether the feed was.

        ``WITH updated AS (UPDATE … RETURNING id) INSERT … SELECT … FROM
        updated``: the feed ``pk`` under ``fence`` (``Feed.objects.fenced``)
        gets ``changes``, and the run is inserted for the row updated, in one
        round trip and one implicit transaction, instead of BEGIN, UPDATE,
        INSERT and COMMIT (a 304's whole record; docs/dev/performance.md). When no
        row matches (a newer fence), nothing is written and False is returned.
        PostgreSQL only (``can_insert_with_update``).
        """
        connection = connections[self.db]
        update_sql, update_params = update_statement(pk, fence, changes, connection)
        returning = f"RETURNING {connection.ops.quote_name(Feed._meta.pk.column)}"
        updated = (f"WITH updated AS ({update_sql} {returning}) ", update_params)
        return self._insert_from(run, "FROM updated", with_=updated) is not None

    def insert_with_updates(self, writes):
        """``insert_with_update`` for several feeds in one statement; the ids of the feeds updated.

        ``writes`` are ``(run, pk, fence, changes)``, their ``changes`` plain
        values of the same columns (a batch's 304s). The feeds' updates and the
        runs are two JSON parameters, read by ``json_to_recordset``: ``WITH
        updated AS (UPDATE … FROM … RETURNING id) INSERT … SELECT … JOIN
        updated``, one round trip and one commit for them all (as arrays, the
        client-side adaptation of each column cost as much as the round trips
        saved). A feed whose fence is no longer ``fence`` is left out, its run
        not written. PostgreSQL only (``can_insert_with_update``).
        """
        connection = connections[self.db]
        names = list(writes[0][3])
        sql, feed_columns, run_columns = updates_statement(self.model, connection, names)
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
        for run, pk, _fence, _changes in writes:
            if pk in inserted:
                run.pk = inserted[pk]
                run._state.adding, run._state.db = False, self.db
        return set(inserted)

    def insert_for_url(self, run, url):
        """Save the new ``run`` for the feed of ``url`` in one statement; return that feed.

        ``INSERT ... SELECT`` from the feed by its URL, instead of a SELECT of
        the feed and an INSERT: a skip's record is one round trip (under
        contention each blocking call waits for a core again;
        docs/dev/performance.md). The feed comes back with its id and URL loaded,
        its other fields when read. Returns None, writing nothing, when no feed
        has ``url``, and on MariaDB and MySQL (no ``INSERT ... RETURNING`` used
        there): the caller saves the run itself.
        """
        connection = connections[self.db]
        if connection.vendor == "mysql" or not connection.features.can_return_columns_from_insert:
            return None
        quote = connection.ops.quote_name
        by_url = f"FROM {quote(Feed._meta.db_table)} WHERE {quote('url')} = %s"
        feed_id = self._insert_from(run, by_url, params=[url])
        if feed_id is None:
            return None
        run.feed = Feed.from_db(self.db, ["id", "url"], [feed_id, url])
        return run.feed

    def _insert_from(self, run, source, *, with_=("", ()), params=()):
        """Insert the new ``run`` for the feed row that ``source`` yields, in one statement.

        ``[WITH …] INSERT … SELECT id, <the run's values> <source>``: the one
        statement of ``insert_for_url`` and ``insert_with_update``. Returns the
        feed's id with ``run`` saved, or None (nothing written) when
        ``source`` yields no row.
        """
        connection = connections[self.db]
        meta, quote = self.model._meta, connection.ops.quote_name
        fields = run_fields(self.model)[1:]
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
        run.pk, feed_id = row
        run._state.adding, run._state.db = False, self.db
        return feed_id


def run_fields(model):
    """The fields a run's INSERT writes, its feed first (not its id: the database's)."""
    meta = model._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key and f.attname != "feed_id"]
    return [meta.get_field("feed"), *fields]


def updates_statement(model, connection, names):
    """``insert_with_updates``' SQL for changes of the Feed columns ``names``, and its columns.

    Returns ``(sql, feed_columns, run_columns)``: the keys of the JSON rows
    of its two parameters. A feed's row: ``id``, ``fence``, then the columns
    of ``names``; a run's: its feed's column, then ``(column, attname)`` of
    each of ``run_fields``' others. Dates are read as their ``str()``, as
    PostgreSQL reads them. Made once per connection and set of columns, and
    kept on the connection.
    """
    made = connection.__dict__.setdefault("djangofeeds_updates_statements", {})
    key = (model, tuple(names))
    if key in made:
        return made[key]
    quote = connection.ops.quote_name
    feed_meta = Feed._meta
    feed_fields = [feed_meta.pk, feed_meta.get_field("fence")]
    feed_fields += [feed_meta.get_field(name) for name in names]
    fields = run_fields(model)

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
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(run_columns)}) "
        f"SELECT {', '.join(f'r.{column}' for column in run_columns)} "
        f"FROM {rows(fields, 'r')} JOIN updated ON updated.{pk} = r.{run_columns[0]} "
        f"RETURNING {quote(model._meta.pk.column)}, {run_columns[0]}"
    )
    feed_columns = [field.column for field in feed_fields]
    run_columns = [fields[0].column, *((field.column, field.attname) for field in fields[1:])]
    made[key] = (sql, feed_columns, run_columns)
    return made[key]


def plain(value):
    """Whether ``value`` is a value to store, not an expression (``F()``) the database computes."""
    return not hasattr(value, "resolve_expression")


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
        rows = Feed.objects.fenced(pk, fence)
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


class ImportRun(models.Model):
    feed = models.ForeignKey(
        Feed, on_delete=models.CASCADE, related_name="import_runs", verbose_name=_("feed")
    )
    # The refresh round that queued this import (none for one a person started).
    refresh_run = models.ForeignKey(
        "RefreshRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="import_runs",
        verbose_name=_("refresh round"),
    )
    task_id = models.CharField(_("task id"), max_length=255, blank=True)
    worker = models.CharField(_("worker"), max_length=255, blank=True)
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    outcome = models.CharField(_("outcome"), max_length=20, choices=Outcome.choices)
    http_status = models.PositiveSmallIntegerField(_("HTTP status"), null=True, blank=True)
    created = models.PositiveIntegerField(pgettext_lazy("number of posts", "created"), default=0)
    updated = models.PositiveIntegerField(pgettext_lazy("number of posts", "updated"), default=0)
    error = models.TextField(_("error"), blank=True)
    warning = models.TextField(
        _("warning"), blank=True, help_text=_("Parser warnings on a feed that still imported.")
    )
    bytes_received = models.PositiveIntegerField(_("bytes received"), default=0)
    fetch_ms = models.PositiveIntegerField(_("fetch (ms)"), default=0)
    parse_ms = models.PositiveIntegerField(_("parse (ms)"), default=0)
    store_ms = models.PositiveIntegerField(_("store (ms)"), default=0)
    # Stored from a document a WebSub hub pushed, not from a fetch.
    pushed = models.BooleanField(_("pushed"), default=False)

    objects = ImportRunQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(fields=["feed", "-started_at"], name="importrun_feed_started_idx"),
            models.Index(fields=["outcome", "-started_at"], name="importrun_outcome_idx"),
            # The admin's default ordering and date drill-down, and the retention cutoff.
            models.Index(fields=["-started_at", "-id"], name="importrun_started_idx"),
        ]
        verbose_name = _("import run")
        verbose_name_plural = _("import runs")

    def __str__(self):
        return gettext("%(feed)s at %(time)s: %(outcome)s") % {
            "feed": self.feed,
            "time": f"{self.started_at:%Y-%m-%d %H:%M:%S}",
            "outcome": self.get_outcome_display(),
        }

    def get_absolute_url(self):
        return self.feed.get_absolute_url()

    @property
    def duration_ms(self):
        if self.finished_at is None:
            return None
        return int((self.finished_at - self.started_at).total_seconds() * 1000)


class RefreshRun(models.Model):
    """One ``refresh_feeds`` round: the feeds it claimed, counted from their ``ImportRun`` rows.

    The outcome columns are filled when the round is over (a later tick closes
    it); until then ``progress()`` counts the runs so far.
    """

    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    feeds = models.PositiveIntegerField(_("feeds"), default=0)
    imported = models.PositiveIntegerField(pgettext_lazy("number of feeds", "imported"), default=0)
    not_modified = models.PositiveIntegerField(
        pgettext_lazy("number of feeds", "not modified"), default=0
    )
    skipped = models.PositiveIntegerField(pgettext_lazy("number of feeds", "skipped"), default=0)
    failed = models.PositiveIntegerField(pgettext_lazy("number of feeds", "failed"), default=0)

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(
                fields=["started_at"],
                condition=models.Q(finished_at__isnull=True),
                name="refreshrun_open_idx",
            )
        ]
        verbose_name = _("refresh run")
        verbose_name_plural = _("refresh runs")

    def __str__(self):
        return ngettext(
            "refresh of %(count)d feed at %(time)s",
            "refresh of %(count)d feeds at %(time)s",
            self.feeds,
        ) % {"count": self.feeds, "time": f"{self.started_at:%Y-%m-%d %H:%M:%S}"}

    def progress(self):
        """``(done, counts)``: feeds with a run in this round, and runs per outcome."""
        runs = ImportRun.objects.filter(refresh_run=self)
        counts = dict.fromkeys(Outcome.values, 0)
        counts.update(runs.values_list("outcome").annotate(n=models.Count("pk")).order_by())
        return runs.values("feed_id").order_by().distinct().count(), counts

    @property
    def unfinished(self):
        """Claimed feeds with no run in a closed round (lost messages, killed workers)."""
        if self.finished_at is None:
            return None
        return max(0, self.feeds - self.imported - self.not_modified - self.skipped - self.failed)
