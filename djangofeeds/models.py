"""Feeds, their posts, and a record of every import attempt."""

import secrets
from urllib.parse import urlsplit, urlunsplit

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import connections, models, transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from djangofeeds.addresses import url_problem
from djangofeeds.sanitize import web_link
from djangofeeds.signals import feed_deactivated, send_on_commit


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

    def deactivate(self, reason="deactivated by a person"):
        """Deactivate these feeds; ``feed_deactivated`` is sent for each one that was active."""
        feeds = list(self.filter(is_active=True))
        self.model.objects.filter(pk__in=[feed.pk for feed in feeds]).update(is_active=False)
        for feed in feeds:
            feed.is_active = False
            send_on_commit(feed_deactivated, self.model, feed=feed, run=None, reason=reason)
        return len(feeds)


class InvalidFeedURL(ValueError):
    """A URL that can never be a feed's (see ``feed_url_problem``)."""


URL_SYNTAX = URLValidator(schemes=["http", "https"])


def feed_url_problem(url):
    """Why ``url`` cannot be a feed's URL, as one readable phrase, or None.

    The one check behind the admin's form (``validate_fetchable``), ``addfeed``
    and ``opml_import`` (``FeedManager.subscribe``): the length the column
    holds, the importer's own rules (``url_problem``: http(s) only, no
    user:password, no private address literal, a host name IDNA takes, a port
    from 1 to 65535), the port as ``urlsplit`` reads it, and Django's
    URL syntax (no spaces, a real host name).
    """
    if not url:
        return "no URL"
    max_length = Feed._meta.get_field("url").max_length
    if len(url) > max_length:
        return f"longer than the {max_length} characters a feed URL may have ({len(url)})"
    problem = url_problem(url)
    if problem:
        return problem
    try:
        _ = urlsplit(url).port  # raises ValueError outside 0-65535 (url_problem refuses 0)
    except ValueError:
        return "the port is not a number from 1 to 65535"
    try:
        URL_SYNTAX(url)
    except ValidationError:
        return "not a valid URL (a space, or a host name that cannot exist?)"
    return None


def validate_fetchable(url):
    """Refuse a URL the importer could never fetch; the admin's feed form shows why."""
    problem = feed_url_problem(url)
    if problem:
        raise ValidationError(problem)


class FeedManager(models.Manager.from_queryset(FeedQuerySet)):
    def subscribe(self, url, *, title="", link="", discover=True):
        """Add the feed at ``url`` unless it exists; return ``(feed, created)``.

        With ``discover``, a URL not yet subscribed is fetched once
        (``djangofeeds.finder``): a feed is stored as given, an HTML page's
        first feed instead of the page. Raises ``InvalidFeedURL`` for a URL
        that could never be fetched or leads to no feed.
        """
        url = url.strip()
        problem = feed_url_problem(url)
        if problem:
            raise InvalidFeedURL(problem)
        if discover:
            from djangofeeds.finder import find  # finder imports this module

            url = find(url).feeds[0].url
        # An OPML htmlUrl is shown as a link on the feed's page: http(s) only.
        defaults = {"title": title[:500], "link": web_link(link)}
        return self.get_or_create(url=url, defaults=defaults)

    def next_fence(self, url):
        """Create the feed if needed, give it a new fencing number, and return it.

        Called right after taking the feed's lock; ``feed.fence`` is the number
        this holder writes with. One ``UPDATE … RETURNING`` (a round trip, and
        the row's write lock for its duration) serialises this against the
        importer's fenced writes, so a stale holder either finished before this
        increment or sees it and is refused. MariaDB and MySQL have no
        ``UPDATE … RETURNING``: there the ``UPDATE`` and a read of the row run
        in one transaction, under the same write lock.
        """
        if connections[self.db].vendor == "mysql":
            return self._next_fence_without_returning(url)
        quote = connections[self.db].ops.quote_name
        table, fence, url_column = (
            quote(name) for name in (self.model._meta.db_table, "fence", "url")
        )
        sql = f"UPDATE {table} SET {fence} = {fence} + 1 WHERE {url_column} = %s RETURNING *"
        for _ in range(2):
            for feed in self.raw(sql, [url]):
                return feed
            self.get_or_create(url=url)  # a feed seen for the first time
        raise self.model.DoesNotExist(url)  # deleted between the two statements

    def _next_fence_without_returning(self, url):
        for _ in range(2):
            with transaction.atomic(using=self.db):
                if self.filter(url=url).update(fence=F("fence") + 1):
                    return self.get(url=url)
            self.get_or_create(url=url)  # a feed seen for the first time
        raise self.model.DoesNotExist(url)  # deleted between the two statements


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
    # A new feed is due at once (NULL, as rows made before migration 0005 had, too).
    next_check_at = models.DateTimeField(null=True, blank=True, db_index=True, default=timezone.now)
    # Set when refresh_feeds or "Import now" queues the feed (next_check_at then
    # moves to the claim's deadline); cleared when an import finishes. Its value
    # travels with the message: an import whose claim was replaced does nothing.
    claimed_at = models.DateTimeField("queued at", null=True, blank=True, editable=False)
    # Adaptive polling: the observed gap between recent entries (seconds) and
    # the newest entry's date, from the last document that had dated entries.
    poll_interval = models.PositiveIntegerField(
        "observed interval (s)", null=True, blank=True, editable=False
    )
    newest_entry_at = models.DateTimeField(null=True, blank=True, editable=False)

    # Bumped on every lock acquisition; writes carry the number they were
    # given and are refused once a newer one exists.
    fence = models.PositiveBigIntegerField(default=0, editable=False)

    created_at = models.DateTimeField(auto_now_add=True)
    categories = models.ManyToManyField("Category", blank=True, related_name="feeds")

    objects = FeedManager()

    class Meta:
        ordering = ["title", "url"]
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

    def __str__(self):
        return self.title or self.url

    def get_absolute_url(self):
        return reverse("djangofeeds:feed_detail", kwargs={"pk": self.pk})

    @property
    def public_url(self):
        """The URL as the public pages show it: without user:password, query string and
        fragment, where private feeds keep their tokens (``?key=...``)."""
        parts = urlsplit(self.url)
        return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


class PostQuerySet(models.QuerySet):
    def of_active_feeds(self):
        return self.filter(feed__is_active=True)

    def upsert(self, posts, update_fields):
        """Insert ``posts``, or update ``update_fields`` of those whose (feed, guid) exists;
        return them with their primary keys.

        MariaDB and MySQL's ``ON DUPLICATE KEY UPDATE`` names no conflict target
        (the (feed, guid_hash) key is the only unique one a new post can hit),
        and MySQL returns no ids from it: they are read back by guid.
        """
        connection = connections[self.db]
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
    categories = models.ManyToManyField("Category", blank=True, related_name="posts")

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

    def get_page_url(self):
        """The post's page on this site; ``get_absolute_url`` is the original article."""
        return reverse("djangofeeds:post_detail", kwargs={"pk": self.pk})


class Enclosure(models.Model):
    """A media file attached to a post: a podcast episode, a video, a PDF."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="enclosures")
    url = models.URLField("URL", max_length=2000)
    type = models.CharField(max_length=100, blank=True, help_text="MIME type, e.g. audio/mpeg.")
    length = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="Bytes, as the feed says; empty when unknown."
    )

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return self.url

    @property
    def kind(self):
        """ "audio" or "video" for what the page plays, else "" (a download link)."""
        kind = self.type.partition("/")[0]
        return kind if kind in ("audio", "video") else ""


class Category(models.Model):
    """A feed's or a post's category: RSS ``<category domain>``, Atom ``term``/``scheme``."""

    name = models.CharField(max_length=100)
    domain = models.CharField(
        max_length=500, blank=True, help_text="RSS domain or Atom scheme; often empty."
    )

    class Meta:
        ordering = ["name", "domain"]
        verbose_name_plural = "categories"
        constraints = [
            models.UniqueConstraint(fields=["name", "domain"], name="category_unique_name_domain")
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
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

    def __str__(self):
        return f"pruned post {self.guid_hash[:12]} of feed #{self.feed_id}"


class ImportRun(models.Model):
    feed = models.ForeignKey(Feed, on_delete=models.CASCADE, related_name="import_runs")
    # The refresh round that queued this import (none for one a person started).
    refresh_run = models.ForeignKey(
        "RefreshRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="import_runs",
        verbose_name="refresh round",
    )
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
    # Stored from a document a WebSub hub pushed, not from a fetch.
    pushed = models.BooleanField(default=False)

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(fields=["feed", "-started_at"], name="importrun_feed_started_idx"),
            models.Index(fields=["outcome", "-started_at"], name="importrun_outcome_idx"),
            # The admin's default ordering and date drill-down, and the retention cutoff.
            models.Index(fields=["-started_at", "-id"], name="importrun_started_idx"),
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
    """One ``refresh_feeds`` round: the feeds it claimed, counted from their ``ImportRun`` rows.

    The outcome columns are filled when the round is over (a later tick closes
    it); until then ``progress()`` counts the runs so far.
    """

    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    feeds = models.PositiveIntegerField(default=0)
    imported = models.PositiveIntegerField(default=0)
    not_modified = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(
                fields=["started_at"],
                condition=models.Q(finished_at__isnull=True),
                name="refreshrun_open_idx",
            )
        ]

    def __str__(self):
        return f"refresh of {self.feeds} feeds at {self.started_at:%Y-%m-%d %H:%M:%S}"

    def progress(self):
        """``(done, counts)``: feeds with a run in this round, and runs per outcome."""
        runs = ImportRun.objects.filter(refresh_run=self)
        counts = dict.fromkeys(Outcome.values, 0)
        counts.update(runs.values_list("outcome").annotate(n=models.Count("pk")).order_by())
        return runs.values("feed_id").distinct().count(), counts

    @property
    def unfinished(self):
        """Claimed feeds with no run in a closed round (lost messages, killed workers)."""
        if self.finished_at is None:
            return None
        return max(0, self.feeds - self.imported - self.not_modified - self.skipped - self.failed)


def new_callback_token():
    """A callback path segment nobody can guess (256 bits)."""
    return secrets.token_urlsafe(32)


def new_secret():
    """The ``hub.secret`` a hub signs pushed content with."""
    return secrets.token_urlsafe(32)


class Subscription(models.Model):
    """A WebSub subscription of one feed at its hub (djangofeeds.websub)."""

    class State(models.TextChoices):
        PENDING = "pending", "pending (waiting for the hub's verification)"
        ACTIVE = "active", "active"
        DENIED = "denied", "denied by the hub"
        UNSUBSCRIBED = "unsubscribed", "unsubscribed"

    # SET_NULL: a deleted feed's subscription stays until the hub is told (renewal task).
    feed = models.OneToOneField(
        Feed, on_delete=models.SET_NULL, null=True, blank=True, related_name="subscription"
    )
    hub = models.URLField(max_length=2000)
    topic = models.URLField(max_length=2000)
    token = models.CharField(max_length=64, unique=True, default=new_callback_token, editable=False)
    secret = models.CharField(max_length=100, default=new_secret, editable=False)
    state = models.CharField(max_length=20, choices=State.choices, default=State.PENDING)
    lease_expires_at = models.DateTimeField("lease ends", null=True, blank=True)
    last_push_at = models.DateTimeField("last push", null=True, blank=True)
    # A poll found posts no push had brought: polling is back to the feed's own pace.
    missed_at = models.DateTimeField("push missed posts at", null=True, blank=True)
    requested_at = models.DateTimeField("last request to the hub", null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["state", "lease_expires_at"], name="websub_lease_idx")]

    def __str__(self):
        return f"{self.topic} at {self.hub} ({self.state})"

    def pushing(self, now=None):
        """Whether pushes arrive: verified, leased, and no poll found posts a push missed."""
        now = now or timezone.now()
        return (
            self.state == self.State.ACTIVE
            and self.lease_expires_at is not None
            and self.lease_expires_at > now
            and self.last_push_at is not None
            and (self.missed_at is None or self.last_push_at > self.missed_at)
        )
