"""Posts, their enclosures and categories, and the tombstones of pruned posts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Self

from django.db import connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import F
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from djangofeeds.models.feeds import Feed


class PostQuerySet(models.QuerySet["Post"]):
    def of_active_feeds(self) -> Self:
        return self.filter(feed__is_active=True)

    def upsert(self, posts: list[Post], update_fields: Sequence[str]) -> list[Post]:
        """Insert ``posts``, or update ``update_fields`` of those whose (feed, guid) exists;
        return them with their primary keys.

        MariaDB and MySQL's ``ON DUPLICATE KEY UPDATE`` names no conflict target
        (the (feed, guid_hash) key is the only unique one a new post can hit),
        and MySQL returns no ids from it: they are read back by guid.
        """
        connection = connections[self.db]
        if connection.vendor == "postgresql":
            return self._upsert_json(connection, posts, update_fields)
        if connection.features.supports_update_conflicts_with_target:
            return self.bulk_create(
                posts,
                update_conflicts=True,
                unique_fields=["feed", "guid_hash"],
                update_fields=update_fields,
            )
        stored = self.bulk_create(posts, update_conflicts=True, update_fields=update_fields)
        missing = [post for post in stored if post.pk is None]
        if missing:
            rows = self.filter(
                feed_id__in={post.feed_id for post in missing},
                guid_hash__in={post.guid_hash for post in missing},
            ).values_list("feed_id", "guid_hash", "pk")
            pks = {(feed_id, guid_hash): pk for feed_id, guid_hash, pk in rows}
            for post in missing:
                post.pk = pks[post.feed_id, post.guid_hash]
        return stored

    def _upsert_json(
        self, connection: BaseDatabaseWrapper, posts: list[Post], update_fields: Sequence[str]
    ) -> list[Post]:
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
        meta = self.model._meta
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
            f"{quote(column)} = EXCLUDED.{quote(column)}"  # type: ignore[arg-type]
            for column in (meta.get_field(name).column for name in update_fields)  # type: ignore[union-attr]
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
            post.pk = pk
            post._state.adding, post._state.db = False, self.db
        return posts


def json_value(value: object) -> str:
    """A value the json module cannot write: a datetime, in ISO 8601 (its offset kept)."""
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a post's column value")


class Post(models.Model):
    feed = models.ForeignKey(
        Feed, on_delete=models.CASCADE, related_name="posts", verbose_name=_("feed")
    )
    guid = models.TextField(_("GUID"))
    # SHA-256 of guid: guids are unbounded text, the unique key needs a fixed size.
    guid_hash = models.CharField(max_length=64, editable=False)
    title = models.TextField(_("title"), blank=True)
    link = models.URLField(_("link"), max_length=2000, blank=True)
    author = models.CharField(_("author"), max_length=500, blank=True)
    content = models.TextField(_("content"), blank=True, help_text=_("Sanitized HTML."))
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated at"), null=True, blank=True)
    # Hash of everything above: a re-import rewrites only posts whose checksum changed.
    checksum = models.CharField(max_length=64, editable=False)
    imported_at = models.DateTimeField(_("imported at"), default=timezone.now, editable=False)
    # Annotated: django-stubs resolves a lazy reference only as "app_label.Model".
    categories: models.ManyToManyField[Category, Any] = models.ManyToManyField(
        "Category", blank=True, related_name="posts", verbose_name=_("categories")
    )

    objects = PostQuerySet.as_manager()

    class Meta:
        # Undated posts last, on every database (PostgreSQL puts NULLs first when
        # descending): a feed without dates must not hold the top of /feeds/.
        ordering = [F("published_at").desc(nulls_last=True), "-id"]
        constraints = [
            models.UniqueConstraint(fields=["feed", "guid_hash"], name="post_unique_guid_per_feed")
        ]
        indexes = [
            models.Index(fields=["feed", "-published_at"], name="post_feed_published_idx"),
            models.Index(fields=["-published_at"], name="post_published_idx"),
        ]
        verbose_name = _("post")
        verbose_name_plural = _("posts")

    def __str__(self) -> str:
        return self.title or self.link or self.guid

    def get_absolute_url(self) -> str:
        return self.link or self.feed.get_absolute_url()

    def get_page_url(self) -> str:
        """The post's page on this site; ``get_absolute_url`` is the original article."""
        return reverse("djangofeeds:post_detail", kwargs={"pk": self.pk})


class Enclosure(models.Model):
    """A media file attached to a post: a podcast episode, a video, a PDF."""

    post = models.ForeignKey(
        Post, on_delete=models.CASCADE, related_name="enclosures", verbose_name=_("post")
    )
    url = models.URLField(_("URL"), max_length=2000)
    type = models.CharField(
        _("type"), max_length=100, blank=True, help_text=_("MIME type, e.g. audio/mpeg.")
    )
    length = models.PositiveBigIntegerField(
        _("length"),
        null=True,
        blank=True,
        help_text=_("Bytes, as the feed says; empty when unknown."),
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("enclosure")
        verbose_name_plural = _("enclosures")

    def __str__(self) -> str:
        return self.url

    @property
    def kind(self) -> str:
        """ "audio" or "video" for what the page plays, else "" (a download link)."""
        kind = self.type.partition("/")[0]
        return kind if kind in ("audio", "video") else ""


class Category(models.Model):
    """A feed's or a post's category: RSS ``<category domain>``, Atom ``term``/``scheme``."""

    name = models.CharField(_("name"), max_length=100)
    domain = models.CharField(
        _("domain"),
        max_length=500,
        blank=True,
        help_text=_("RSS domain or Atom scheme; often empty."),
    )

    class Meta:
        ordering = ["name", "domain"]
        verbose_name = _("category")
        verbose_name_plural = _("categories")
        constraints = [
            models.UniqueConstraint(fields=["name", "domain"], name="category_unique_name_domain")
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return f"{reverse('djangofeeds:post_list')}?category={self.pk}"


class PrunedPost(models.Model):
    """A post pruned by ``DJANGOFEEDS_KEEP_POSTS``, remembered while its feed still lists it.

    Without it the next import would find the entry unknown and store it as
    new again. The importer forgets a feed's tombstones once the feed stops
    listing them, so there are never more than the feed lists (at most
    ``parsed.MAX_ENTRIES``).
    """

    feed = models.ForeignKey(Feed, on_delete=models.CASCADE, related_name="pruned_posts")
    guid_hash = models.CharField(max_length=64)
    pruned_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["feed", "guid_hash"], name="prunedpost_unique_guid")
        ]

    def __str__(self) -> str:
        return f"pruned post {self.guid_hash[:12]} of feed #{self.feed_id}"
