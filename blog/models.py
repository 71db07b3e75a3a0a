"""Blog entries, their comments, and each comment's history of checks and decisions."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone

# Paths of blog/urls.py beside <slug>/: an entry with one of these slugs could never be reached.
RESERVED_SLUGS = frozenset({"feed"})


class EntryQuerySet(models.QuerySet):
    def published(self):
        """Entries a visitor may see: published, and not dated in the future."""
        return self.filter(is_published=True, pub_date__lte=timezone.now())


class Entry(models.Model):
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    body = models.TextField()
    pub_date = models.DateTimeField("published", default=timezone.now, db_index=True)
    is_published = models.BooleanField("published?", default=False)

    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["-pub_date"]
        verbose_name_plural = "entries"

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("blog:entry_detail", kwargs={"slug": self.slug})

    def clean(self):
        if self.slug in RESERVED_SLUGS:
            raise ValidationError(
                {"slug": f"“{self.slug}” is the address of another page of the blog."}
            )


class CommentQuerySet(models.QuerySet):
    def published(self):
        """Comments a visitor may see."""
        return self.filter(status=Comment.Status.PUBLISHED)

    def pending(self):
        return self.filter(status=Comment.Status.PENDING)

    def spam(self):
        return self.filter(status=Comment.Status.SPAM)


class Comment(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        PUBLISHED = "published", "published"
        SPAM = "spam", "spam"

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="comments")
    name = models.CharField(max_length=64)
    email_address = models.EmailField("email address")
    homepage = models.URLField("home page", blank=True)
    comment = models.TextField()
    pub_date = models.DateTimeField("posted", default=timezone.now, db_index=True)
    status = models.CharField(max_length=16, choices=Status, default=Status.PENDING)
    # Blatant spam (Akismet's "discard"): kept only when BLOG_SPAM_DELETE_BLATANT is off.
    is_blatant = models.BooleanField(default=False)
    user_ip = models.GenericIPAddressField("IP address", null=True, blank=True)
    user_agent = models.TextField(blank=True)
    referrer = models.TextField(blank=True)
    spam_checked_at = models.DateTimeField("checked at", null=True, blank=True)
    # When a check was last sent to the broker: the sweeper re-sends comments
    # still pending long after it (broker down at POST time, lost task).
    last_dispatched_at = models.DateTimeField(null=True, blank=True)
    # What the last check sent, so that spam/ham feedback sends the same data.
    akismet_payload = models.JSONField(default=dict, blank=True)

    objects = CommentQuerySet.as_manager()

    class Meta:
        ordering = ["pub_date"]
        indexes = [models.Index(fields=["status", "last_dispatched_at"])]

    def __str__(self):
        return f"{self.name} on {self.entry}"

    def get_absolute_url(self):
        return f"{self.entry.get_absolute_url()}#comment-{self.pk}"


class CommentEvent(models.Model):
    class Kind(models.TextChoices):
        CHECKED = "checked", "checked"
        CHECK_FAILED = "check_failed", "check failed"
        RECHECKED = "rechecked", "sent for re-check"
        MARKED_SPAM = "marked_spam", "marked as spam"
        MARKED_HAM = "marked_ham", "marked as not spam"
        PUBLISHED = "published", "published"
        FEEDBACK_SENT = "feedback_sent", "feedback sent"
        FEEDBACK_FAILED = "feedback_failed", "feedback failed"

    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="events")
    created_at = models.DateTimeField("when", default=timezone.now)
    kind = models.CharField(max_length=32, choices=Kind)
    # The moderator; empty for the spam filter and the sweeper.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self):
        return f"{self.get_kind_display()} ({self.created_at:%Y-%m-%d %H:%M})"
