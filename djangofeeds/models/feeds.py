"""Feeds: what is known of each one, and the queries and writes that pick and fence them."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from datetime import datetime
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urlsplit, urlunsplit

from django.db import connections, models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import F
from django.db.models.expressions import Expression
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from djangofeeds.feed_urls import (
    URL_MAX_LENGTH,
    InvalidFeedURL,
    feed_url_problem,
    validate_fetchable,
)
from djangofeeds.finder import Discovery, discover
from djangofeeds.sanitize import web_link
from djangofeeds.signals import feed_deactivated, send_on_commit

if TYPE_CHECKING:
    from djangofeeds.models.posts import Category

# A fence statement's converters: (column position, (its converter functions, its column)).
ColumnConverters = list[tuple[int, tuple[list[Callable[..., Any]], Any]]]


class Outcome(models.TextChoices):
    IMPORTED = "imported", _("imported")
    NOT_MODIFIED = "not_modified", _("not modified")
    SKIPPED = "skipped", _("skipped (lock held)")
    FAILED = "failed", _("failed")


class FeedQuerySet(models.QuerySet["Feed"]):
    def active(self) -> Self:
        return self.filter(is_active=True)

    def due(self, now: datetime | None = None) -> Self:
        """Active feeds whose next check time has come (or was never set)."""
        now = now or timezone.now()
        return self.active().filter(
            models.Q(next_check_at__isnull=True) | models.Q(next_check_at__lte=now)
        )

    def fenced(self, pk: int, fence: int | None) -> Self:
        """The feed ``pk`` while ``fence`` is its newest fencing number (any, if None)."""
        rows = self.filter(pk=pk)
        return rows if fence is None else rows.filter(fence=fence)

    def deactivate(self, reason: str = "deactivated by a person") -> int:
        """Deactivate these feeds; ``feed_deactivated`` is sent for each one that was active."""
        feeds = list(self.filter(is_active=True))
        self.model.objects.filter(pk__in=[feed.pk for feed in feeds]).update(is_active=False)
        for feed in feeds:
            feed.is_active = False
            send_on_commit(feed_deactivated, self.model, feed=feed, run=None, reason=reason)
        return len(feeds)


def fence_statement(
    model: type[Feed], connection: BaseDatabaseWrapper, *, many: bool = False
) -> tuple[str, list[str], ColumnConverters]:
    """``next_fence``'s SQL, the attribute names of its columns, and their converters.

    With ``many``, the statement of ``next_fences``: its one parameter is the
    list of URLs (PostgreSQL: an array; SQLite: a JSON array). Made once per
    connection and kept on it (the converters are its own).
    """
    made = getattr(connection, "djangofeeds_fence_statements", None)
    if made is None or made["model"] is not model:
        quote, fields = connection.ops.quote_name, model._meta.concrete_fields
        table, fence, url = quote(model._meta.db_table), quote("fence"), quote("url")
        returning = f"RETURNING {', '.join(quote(field.column) for field in fields)}"
        update = f"UPDATE {table} SET {fence} = {fence} + 1 WHERE"
        in_list = (
            "= ANY(%s)"
            if connection.vendor == "postgresql"
            else "IN (SELECT value FROM json_each(%s))"
        )
        query = models.sql.Query(model)
        compiler = connection.ops.compiler("SQLCompiler")(query, connection, connection.alias)
        columns: list[Expression] = [field.get_col(model._meta.db_table) for field in fields]
        made = {
            "model": model,
            "one": f"{update} {url} = %s {returning}",
            "many": f"{update} {url} {in_list} {returning}",
            "names": [field.attname for field in fields],
            "converters": list(compiler.get_converters(columns).items()),
        }
        connection.djangofeeds_fence_statements = made  # type: ignore[attr-defined]
    return made["many" if many else "one"], made["names"], made["converters"]


# A base class of its own: django-stubs reads a manager's queryset methods from it.
BaseFeedManager = models.Manager.from_queryset(FeedQuerySet)


class FeedManager(BaseFeedManager["Feed"]):
    def subscribe(
        self, url: str, *, title: str = "", link: str = "", discover: bool = True
    ) -> tuple[Feed, bool]:
        """Add the feed at ``url`` unless it exists; return ``(feed, created)``.

        With ``discover``, a URL not yet subscribed is fetched once
        (``find``): a feed is stored as given, an HTML page's
        first feed instead of the page. Raises ``InvalidFeedURL`` for a URL
        that could never be fetched or leads to no feed.
        """
        url = url.strip()
        problem = feed_url_problem(url)
        if problem:
            raise InvalidFeedURL(problem)
        if discover:
            url = self.find(url).feeds[0].url
        # An OPML htmlUrl is shown as a link on the feed's page: http(s) only.
        defaults = {"title": title[:500], "link": web_link(link)}
        return self.get_or_create(url=url, defaults=defaults)

    def find(self, url: str) -> Discovery:
        """``finder.discover(url)``, except that a URL already subscribed is taken as a feed,
        unfetched. Raises ``InvalidFeedURL`` as ``discover`` does."""
        url = url.strip()
        problem = feed_url_problem(url)
        if problem:
            raise InvalidFeedURL(problem)
        if self.filter(url=url).exists():
            return Discovery.as_given(url)
        return discover(url)

    def next_fence(self, url: str) -> Feed:
        """Create the feed if needed, give it a new fencing number, and return it.

        Called right after taking the feed's lock; ``feed.fence`` is the number
        this holder writes with. One ``UPDATE … RETURNING`` (a round trip, and
        the row's write lock for its duration) serialises this against the
        importer's fenced writes, so a stale holder either finished before this
        increment or sees it and is refused. MariaDB and MySQL have no
        ``UPDATE … RETURNING``: there the ``UPDATE`` and a read of the row run
        in one transaction, under the same write lock.
        """
        connection = connections[self.db]
        if connection.vendor == "mysql":
            return self._next_fence_without_returning(url)
        for _attempt in range(2):
            feed = self._bump_fence(connection, url)
            if feed is not None:
                return feed
            self.get_or_create(url=url)  # a feed seen for the first time
        raise self.model.DoesNotExist(url)  # deleted between the two statements

    def next_fences(self, urls: Collection[str]) -> dict[str, Feed]:
        """``next_fence`` for several feeds in one statement: ``{url: feed}``.

        The batch's path (``batches.run_batch``), once it holds the feeds'
        locks. Feeds not found (seen for the first time) are left out: the
        caller takes theirs with ``next_fence``. MariaDB and MySQL, without
        ``UPDATE … RETURNING``, leave every feed to ``next_fence``.
        """
        connection = connections[self.db]
        if not urls or connection.vendor not in ("postgresql", "sqlite"):
            return {}
        parameter = list(urls) if connection.vendor == "postgresql" else json.dumps(list(urls))
        return {feed.url: feed for feed in self._bump_fences(connection, parameter, many=True)}

    def _bump_fence(self, connection: BaseDatabaseWrapper, url: str) -> Feed | None:
        """The ``UPDATE … RETURNING`` of ``next_fence``; the feed it returns, else None."""
        return next(iter(self._bump_fences(connection, url)), None)

    def _bump_fences(
        self, connection: BaseDatabaseWrapper, parameter: str | list[str], *, many: bool = False
    ) -> list[Feed]:
        """Run a fence statement (``fence_statement``); the feeds it returns.

        The rows are read as ``raw()`` reads them (the database's converters,
        then ``from_db``) from a statement and converters made once per
        connection: ``raw()`` works them out again each time, most of the
        call's CPU.
        """
        sql, names, converters = fence_statement(self.model, connection, many=many)
        with connection.cursor() as cursor:
            cursor.execute(sql, [parameter])
            rows = cursor.fetchall()
        feeds = []
        for row in rows:
            values = list(row)
            for position, (functions, column) in converters:  # as SQLCompiler.apply_converters
                for convert in functions:
                    values[position] = convert(values[position], column, connection)
            feeds.append(self.model.from_db(self.db, names, values))
        return feeds

    def _next_fence_without_returning(self, url: str) -> Feed:
        for _attempt in range(2):
            with transaction.atomic(using=self.db):
                if self.filter(url=url).update(fence=F("fence") + 1):
                    return self.get(url=url)
            self.get_or_create(url=url)  # a feed seen for the first time
        raise self.model.DoesNotExist(url)  # deleted between the two statements


class Feed(models.Model):
    url = models.URLField(
        _("URL"), max_length=URL_MAX_LENGTH, unique=True, validators=[validate_fetchable]
    )
    title = models.CharField(_("title"), max_length=500, blank=True)
    link = models.URLField(_("link"), max_length=2000, blank=True)
    description = models.TextField(_("description"), blank=True)
    is_active = models.BooleanField(_("active"), default=True)

    # Conditional GET validators, as the server last sent them.
    etag = models.CharField(_("etag"), max_length=500, blank=True)
    last_modified = models.CharField(_("last modified"), max_length=100, blank=True)
    # SHA-256 of the last body imported (with the reader's revision): a 200
    # answer with the same bytes stops before parsing.
    body_hash = models.CharField(max_length=64, blank=True, editable=False)

    last_checked_at = models.DateTimeField(_("last checked at"), null=True, blank=True)
    last_success_at = models.DateTimeField(_("last success at"), null=True, blank=True)
    last_status = models.CharField(
        _("last outcome"), max_length=20, choices=Outcome.choices, blank=True
    )
    last_http_status = models.PositiveSmallIntegerField(
        _("last HTTP status"), null=True, blank=True
    )
    last_error = models.TextField(_("last error"), blank=True)
    error_count = models.PositiveIntegerField(_("error count"), default=0)
    # A new feed is due at once (NULL, as rows made before migration 0005 had, too).
    next_check_at = models.DateTimeField(
        _("next check at"), null=True, blank=True, db_index=True, default=timezone.now
    )
    # Set when refresh_feeds or "Import now" queues the feed (next_check_at then
    # moves to the claim's deadline); cleared when an import finishes. Its value
    # travels with the message: an import whose claim was replaced does nothing.
    claimed_at = models.DateTimeField(_("queued at"), null=True, blank=True, editable=False)
    # Adaptive polling: the observed gap between recent entries (seconds) and
    # the newest entry's date, from the last document that had dated entries.
    poll_interval = models.PositiveIntegerField(
        _("observed interval (s)"), null=True, blank=True, editable=False
    )
    newest_entry_at = models.DateTimeField(
        _("newest entry at"), null=True, blank=True, editable=False
    )

    # Bumped on every lock acquisition; writes carry the number they were
    # given and are refused once a newer one exists.
    fence = models.PositiveBigIntegerField(_("fence"), default=0, editable=False)

    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    # Annotated: django-stubs resolves a lazy reference only as "app_label.Model".
    categories: models.ManyToManyField[Category, Any] = models.ManyToManyField(
        "Category", blank=True, related_name="feeds", verbose_name=_("categories")
    )

    objects = FeedManager()

    class Meta:
        ordering = ["title", "url"]
        verbose_name = _("feed")
        verbose_name_plural = _("feeds")
        indexes = [
            models.Index(fields=["is_active", "next_check_at"], name="feed_due_idx"),
            # The admin's status filters ("failing", last outcome) on many feeds.
            models.Index(fields=["is_active", "error_count"], name="feed_errors_idx"),
            models.Index(fields=["last_status"], name="feed_last_status_idx"),
            # The claim's scan, in its order: it stops after one batch.
            models.Index(
                fields=["next_check_at"], condition=models.Q(is_active=True), name="feed_claim_idx"
            ),
            # Backpressure counts the unfinished claims only.
            models.Index(
                fields=["claimed_at"],
                condition=models.Q(claimed_at__isnull=False),
                name="feed_claimed_idx",
            ),
        ]

    def __str__(self) -> str:
        return self.title or self.url

    def get_absolute_url(self) -> str:
        return reverse("djangofeeds:feed_detail", kwargs={"pk": self.pk})

    @property
    def public_url(self) -> str:
        """The URL as the public pages show it: without user:password, query string and
        fragment, where private feeds keep their tokens (``?key=...``)."""
        parts = urlsplit(self.url)
        return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))
