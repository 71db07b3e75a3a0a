"""Feeds: what is known of each one, and the queries that pick and fence them.

The fenced writes and the fencing numbers are ``djangofeeds.locking.fence``'s.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urlsplit, urlunsplit

from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from djangofeeds.fetching.feed_urls import (
    URL_MAX_LENGTH,
    InvalidFeedURL,
    feed_url_problem,
    validate_fetchable,
)
from djangofeeds.parsing.sanitize import web_link

if TYPE_CHECKING:
    from djangofeeds.models.categories import Category


class Outcome(models.TextChoices):
    IMPORTED = "imported", _("imported")
    NOT_MODIFIED = "not_modified", _("not modified")
    SKIPPED = "skipped", _("skipped (lock held)")
    FAILED = "failed", _("failed")


class Health(models.TextChoices):
    """What the imports tell of a feed over time (djangofeeds.health.states has the rules)."""

    OK = "ok", _("ok")
    FAILING = "failing", _("failing")
    DEAD = "dead", _("dead")
    MOVED = "moved", _("moved")
    GONE = "gone", _("gone")
    SILENT = "silent", _("silent")


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

    def deactivate(self) -> list[Feed]:
        """Deactivate these feeds; return those that were active (``records.deactivate``
        sends the signal for them)."""
        feeds = list(self.filter(is_active=True))
        self.model.objects.filter(pk__in=[feed.pk for feed in feeds]).update(is_active=False)
        for feed in feeds:
            feed.is_active = False
        return feeds


# A base class of its own: django-stubs reads a manager's queryset methods from it.
BaseFeedManager = models.Manager.from_queryset(FeedQuerySet)


class FeedManager(BaseFeedManager["Feed"]):
    def subscribe(self, url: str, *, title: str = "", link: str = "") -> tuple[Feed, bool]:
        """Add the feed at ``url``, as written, unless it exists; return ``(feed, created)``.

        No request is made (``discovery.finder.subscribe`` finds the feed behind
        a page first). Raises ``InvalidFeedURL`` for a URL that could never be fetched.
        """
        url = url.strip()
        problem = feed_url_problem(url)
        if problem:
            raise InvalidFeedURL(problem)
        # An OPML htmlUrl is shown as a link on the feed's page: http(s) only.
        defaults = {"title": title[:500], "link": web_link(link)}
        return self.get_or_create(url=url, defaults=defaults)


class Feed(models.Model):
    url = models.URLField(
        _("URL"), max_length=URL_MAX_LENGTH, unique=True, validators=[validate_fetchable]
    )
    title = models.CharField(_("title"), max_length=500, blank=True)
    link = models.URLField(_("link"), max_length=2000, blank=True)
    description = models.TextField(_("description"), blank=True)
    # The feed's artwork as its last import read it (djangofeeds.parsing.podcasts).
    image_url = models.URLField(_("image"), max_length=2000, blank=True)
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
    # The usual gap between the document's dated entries (seconds): silence is measured by it.
    entry_interval = models.PositiveIntegerField(
        _("usual interval (s)"), null=True, blank=True, editable=False
    )

    health = models.CharField(
        _("health"), max_length=10, choices=Health.choices, default=Health.OK, editable=False
    )
    health_changed_at = models.DateTimeField(
        _("health changed at"), null=True, blank=True, editable=False
    )
    # The first failure of the current run of failures (a feed is dead only after days of them).
    failing_since = models.DateTimeField(_("failing since"), null=True, blank=True, editable=False)
    # A permanent redirect seen on the last fetches: the URL changes only once it repeats
    # (DJANGOFEEDS_MOVE_AFTER times, over a day), a guard against a hijacked or mistaken one.
    redirect_url = models.URLField(
        _("redirected to"), max_length=URL_MAX_LENGTH, blank=True, editable=False
    )
    redirect_count = models.PositiveSmallIntegerField(
        _("redirects in a row"), default=0, editable=False
    )
    redirect_since = models.DateTimeField(
        _("redirected since"), null=True, blank=True, editable=False
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
            # The admin's health page counts feeds per state.
            models.Index(fields=["health"], name="feed_health_idx"),
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
    def public_name(self) -> str:
        """The feed's name on public pages and output feeds: its title, else its public URL."""
        return self.title or self.public_url

    @property
    def public_url(self) -> str:
        """The URL as the public pages show it: without user:password, query string and
        fragment, where private feeds keep their tokens (``?key=...``)."""
        parts = urlsplit(self.url)
        return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))
