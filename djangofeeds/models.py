"""Feeds, their posts, and a record of every import attempt."""

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone


class Outcome(models.TextChoices):
    IMPORTED = "imported", "imported"
    NOT_MODIFIED = "not_modified", "not modified"
    SKIPPED = "skipped", "skipped (lock held)"
    FAILED = "failed", "failed"


class FeedQuerySet(models.QuerySet):
    def active(self):
        return self.filter(is_active=True)

    def due(self, now=None):
        """Active feeds whose next check time has come (or was never set)."""
        now = now or timezone.now()
        return self.active().filter(
            models.Q(next_check_at__isnull=True) | models.Q(next_check_at__lte=now)
        )


class InvalidFeedURL(ValueError):
    """A URL that can never be fetched (see ``djangofeeds.fetch.url_problem``)."""


def validate_fetchable(url):
    """Refuse a URL the importer could never fetch; the admin's feed form shows why."""
    from djangofeeds.fetch import url_problem

    problem = url_problem(url)
    if problem:
        raise ValidationError(problem)


class FeedManager(models.Manager.from_queryset(FeedQuerySet)):
    def subscribe(self, url, *, title="", link=""):
        """Add the feed at ``url`` unless it exists; return ``(feed, created)``.

        Raises ``InvalidFeedURL`` for a URL that could never be fetched.
        """
        from djangofeeds.fetch import url_problem
        from djangofeeds.parse import web_link

        url = url.strip()
        problem = url_problem(url)
        if problem:
            raise InvalidFeedURL(problem)
        # An OPML htmlUrl is shown as a link on the feed's page: http(s) only.
        defaults = {"title": title[:500], "link": web_link(link)}
        return self.get_or_create(url=url, defaults=defaults)

    def import_feed(self, url, **options):
        """Fetch, parse and store the feed at ``url``; return the ``Feed``.

        No Celery and no lock here: see ``djangofeeds.tasks`` for those. Keyword
        options (``fence``, ``task_id``, ``worker``, ``progress``) are passed to
        ``djangofeeds.importer.import_feed``.
        """
        from djangofeeds.importer import import_feed

        return import_feed(url, **options).feed

    def next_fence(self, url):
        """Create the feed if needed, give it a new fencing number, and return it.

        Called right after taking the feed's lock; ``feed.fence`` is the number
        this holder writes with. The row lock (PostgreSQL) or the immediate
        write transaction (SQLite) serialise this against the importer's fenced
        writes, so a stale holder either finished before this increment or sees
        it and is refused.
        """
        with transaction.atomic():
            feed, _ = self.select_for_update().get_or_create(url=url)
            self.filter(pk=feed.pk).update(fence=F("fence") + 1)
        feed.fence += 1
        return feed


class Feed(models.Model):
    url = models.URLField("URL", max_length=2000, unique=True, validators=[validate_fetchable])
    title = models.CharField(max_length=500, blank=True)
    link = models.URLField(max_length=2000, blank=True)
    description = models.TextField(blank=True)
    is_active = models.BooleanField("active", default=True)

    # Conditional GET validators, as the server last sent them.
    etag = models.CharField(max_length=500, blank=True)
    last_modified = models.CharField(max_length=100, blank=True)
    # SHA-256 of the last body imported (with the reader's revision): a 200
    # answer with the same bytes stops before parsing.
    body_hash = models.CharField(max_length=64, blank=True, editable=False)

    last_checked_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_status = models.CharField(
        "last outcome", max_length=20, choices=Outcome.choices, blank=True
    )
    last_http_status = models.PositiveSmallIntegerField("last HTTP status", null=True, blank=True)
    last_error = models.TextField(blank=True)
    error_count = models.PositiveIntegerField(default=0)
    next_check_at = models.DateTimeField(null=True, blank=True, db_index=True)

    # Bumped on every lock acquisition; writes carry the number they were
    # given and are refused once a newer one exists.
    fence = models.PositiveBigIntegerField(default=0, editable=False)

    created_at = models.DateTimeField(auto_now_add=True)

    objects = FeedManager()

    class Meta:
        ordering = ["title", "url"]
        indexes = [models.Index(fields=["is_active", "next_check_at"], name="feed_due_idx")]

    def __str__(self):
        return self.title or self.url

    def get_absolute_url(self):
        return reverse("djangofeeds:feed_detail", kwargs={"pk": self.pk})


class PostQuerySet(models.QuerySet):
    def of_active_feeds(self):
        return self.filter(feed__is_active=True)


class Post(models.Model):
    feed = models.ForeignKey(Feed, on_delete=models.CASCADE, related_name="posts")
    guid = models.TextField("GUID")
    # SHA-256 of guid: guids are unbounded text, the unique key needs a fixed size.
    guid_hash = models.CharField(max_length=64, editable=False)
    title = models.TextField(blank=True)
    link = models.URLField(max_length=2000, blank=True)
    author = models.CharField(max_length=500, blank=True)
    content = models.TextField(blank=True, help_text="Sanitized HTML.")
    published_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(null=True, blank=True)
    # Hash of everything above: a re-import rewrites only posts whose checksum changed.
    checksum = models.CharField(max_length=64, editable=False)
    imported_at = models.DateTimeField(default=timezone.now, editable=False)

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

    def __str__(self):
        return self.title or self.link or self.guid

    def get_absolute_url(self):
        return self.link or self.feed.get_absolute_url()


class ImportRun(models.Model):
    feed = models.ForeignKey(Feed, on_delete=models.CASCADE, related_name="import_runs")
    task_id = models.CharField("task id", max_length=255, blank=True)
    worker = models.CharField(max_length=255, blank=True)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices)
    http_status = models.PositiveSmallIntegerField("HTTP status", null=True, blank=True)
    created = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    warning = models.TextField(
        blank=True, help_text="Parser warnings on a feed that still imported."
    )
    bytes_received = models.PositiveIntegerField(default=0)
    fetch_ms = models.PositiveIntegerField("fetch (ms)", default=0)
    parse_ms = models.PositiveIntegerField("parse (ms)", default=0)
    store_ms = models.PositiveIntegerField("store (ms)", default=0)

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(fields=["feed", "-started_at"], name="importrun_feed_started_idx"),
            models.Index(fields=["outcome", "-started_at"], name="importrun_outcome_idx"),
        ]

    def __str__(self):
        return f"{self.feed} at {self.started_at:%Y-%m-%d %H:%M:%S}: {self.get_outcome_display()}"

    def get_absolute_url(self):
        return self.feed.get_absolute_url()

    @property
    def duration_ms(self):
        if self.finished_at is None:
            return None
        return int((self.finished_at - self.started_at).total_seconds() * 1000)


class RefreshRun(models.Model):
    """One scheduled ``refresh_feeds`` round, summarised by its chord callback."""

    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    feeds = models.PositiveIntegerField(default=0)
    imported = models.PositiveIntegerField(default=0)
    not_modified = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self):
        return f"refresh of {self.feeds} feeds at {self.started_at:%Y-%m-%d %H:%M:%S}"
