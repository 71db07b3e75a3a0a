"""Posts, their enclosures and categories, and the tombstones of pruned posts."""

from __future__ import annotations

from typing import Any, Self

from django.db import models
from django.db.models import Exists, F, OuterRef, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from djangofeeds.models.categories import Category
from djangofeeds.models.feeds import Feed


class PostQuerySet(models.QuerySet["Post"]):
    def of_active_feeds(self) -> Self:
        """What the public pages and output feeds show: posts of active feeds, none blocked."""
        return self.filter(feed__is_active=True, is_blocked=False)

    def stories(self) -> Self:
        """``of_active_feeds``, each story once (djangofeeds.stories): a post that repeats
        another feed's is left out, unless that one is hidden (its feed deactivated, or
        the post blocked) and this is the oldest repeat still shown: it stands in."""
        lead_hidden = Q(duplicate_of__feed__is_active=False) | Q(duplicate_of__is_blocked=True)
        # A lookup on the duplicate_of index, which only the rows whose lead is hidden need.
        earlier_repeat = Post.objects.of_active_feeds().filter(
            duplicate_of=OuterRef("duplicate_of"), pk__lt=OuterRef("pk")
        )
        stands_in = lead_hidden & ~Exists(earlier_repeat)
        return self.of_active_feeds().filter(Q(duplicate_of__isnull=True) | stands_in)

    def with_also_in(self) -> Self:
        """With ``also_in``: the posts of other shown feeds that repeat each one."""
        repeats = Post.objects.of_active_feeds().select_related("feed").order_by("feed__title")
        return self.prefetch_related(models.Prefetch("duplicates", repeats, to_attr="also_in"))

    def with_media(self, as_lists: bool = False) -> Self:
        """With their enclosures and categories: two queries per page rather than per post.
        ``as_lists``: as the lists ``enclosure_list`` and ``category_list`` (what the output
        feeds read: no related manager made for each post, 1.6 ms of 50 items' 50 ms)."""
        order = Category.objects.order_by("name")
        if as_lists:
            return self.prefetch_related(
                models.Prefetch("enclosures", to_attr="enclosure_list"),
                models.Prefetch("categories", queryset=order, to_attr="category_list"),
            )
        return self.prefetch_related("enclosures", models.Prefetch("categories", queryset=order))


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
    # A podcast episode's details (djangofeeds.parsing.podcasts), as plain values: what an
    # output feed's itunes: and podcast: elements would take again.
    duration = models.PositiveIntegerField(
        _("duration"), null=True, blank=True, help_text=_("Seconds; empty when unknown.")
    )
    image_url = models.URLField(_("image"), max_length=2000, blank=True)
    season = models.PositiveIntegerField(_("season"), null=True, blank=True)
    episode = models.PositiveIntegerField(_("episode"), null=True, blank=True)
    explicit = models.BooleanField(
        _("explicit"), null=True, blank=True, help_text=_("Empty when the feed does not say.")
    )
    transcript_url = models.URLField(_("transcript"), max_length=2000, blank=True)
    transcript_type = models.CharField(_("transcript type"), max_length=100, blank=True)
    chapters_url = models.URLField(_("chapters"), max_length=2000, blank=True)
    # Hash of everything above: a re-import rewrites only posts whose checksum changed.
    checksum = models.CharField(max_length=64, editable=False)
    # The first digits of the checksums it had before, newest first: an entry holding
    # one of them is an older version (a replayed push) and never replaces the post.
    earlier_checksums = models.CharField(max_length=200, blank=True, editable=False)
    imported_at = models.DateTimeField(_("imported at"), default=timezone.now, editable=False)
    # Hidden from the pages and output feeds by a rule (djangofeeds.importing.judging); kept
    # in the admin. ``blocked_by`` is None for a post held back when the rules ran out of time.
    is_blocked = models.BooleanField(_("blocked"), default=False, editable=False)
    # Its story (djangofeeds.stories): the key of its canonical link, and the post of
    # another feed that had the story first, which the pages show in its place.
    story_key = models.CharField(max_length=40, blank=True, db_index=True, editable=False)
    duplicate_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="duplicates",
        verbose_name=_("repeats"),
    )
    blocked_by = models.ForeignKey(
        "Rule",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="blocked_posts",
        verbose_name=_("blocked by"),
        db_index=False,  # the partial index below: few posts are blocked, of millions
    )
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
            models.Index(
                fields=["blocked_by"],
                condition=models.Q(blocked_by__isnull=False),
                name="post_blocked_by_idx",
            ),
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


class PrunedPost(models.Model):
    """A post pruned by ``DJANGOFEEDS_KEEP_POSTS``, remembered while its feed still lists it.

    Without it the next import would find the entry unknown and store it as
    new again. The importer forgets a feed's tombstones once the feed stops
    listing them, so there are never more than the feed lists (at most
    ``parsing.entries.MAX_ENTRIES``).
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
