"""Blog entries, their comments, and each comment's history of checks and decisions."""

from datetime import datetime, timedelta
from typing import Self

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from blog import conf

# Paths of blog/urls.py beside <slug>/: an entry with one of these slugs could never be reached.
RESERVED_SLUGS = frozenset({"feed", "comments"})


class EntryQuerySet(models.QuerySet["Entry"]):
    def published(self) -> Self:
        """Entries a visitor may see: published, and not dated in the future."""
        return self.filter(is_published=True, pub_date__lte=timezone.now())


class Entry(models.Model):
    title = models.CharField(_("title"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=200, unique=True)
    body = models.TextField(_("body"))
    pub_date = models.DateTimeField(
        pgettext_lazy("date", "published"), default=timezone.now, db_index=True
    )
    is_published = models.BooleanField(_("published?"), default=False)

    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["-pub_date"]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("blog:entry_detail", kwargs={"slug": self.slug})

    def comments_open(self, now: datetime | None = None) -> bool:
        """Whether visitors may still comment: BLOG_CLOSE_AFTER_DAYS after pub_date they may not."""
        days = conf.BLOG_CLOSE_AFTER_DAYS
        if days is None:
            return True
        return (now or timezone.now()) < self.pub_date + timedelta(days=days)

    def clean(self) -> None:
        if self.slug in RESERVED_SLUGS:
            raise ValidationError(
                {
                    "slug": gettext("“%(slug)s” is the address of another page of the blog.")
                    % {"slug": self.slug}
                }
            )


class CommentQuerySet(models.QuerySet["Comment"]):
    def published(self) -> Self:
        """Comments a visitor may see."""
        return self.filter(status=Comment.Status.PUBLISHED)

    def pending(self) -> Self:
        return self.filter(status=Comment.Status.PENDING)

    def spam(self) -> Self:
        return self.filter(status=Comment.Status.SPAM)


class Comment(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        PUBLISHED = "published", _("published")
        SPAM = "spam", _("spam")

    entry = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="comments", verbose_name=_("entry")
    )
    name = models.CharField(_("name"), max_length=64)
    email_address = models.EmailField(_("email address"))
    homepage = models.URLField(_("home page"), blank=True)
    comment = models.TextField(_("comment"))
    # A reply's comment; threads go at most BLOG_MAX_THREAD_DEPTH deep.
    parent = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="replies",
        verbose_name=_("in reply to"),
    )
    # The commenter asked to be mailed the published replies to this comment.
    notify_replies = models.BooleanField(_("notify of replies"), default=False)
    pub_date = models.DateTimeField(_("posted"), default=timezone.now, db_index=True)
    status = models.CharField(_("status"), max_length=16, choices=Status, default=Status.PENDING)
    # Blatant spam (Akismet's "discard"): kept only when BLOG_SPAM_DELETE_BLATANT is off.
    is_blatant = models.BooleanField(_("is blatant"), default=False)
    user_ip = models.GenericIPAddressField(_("IP address"), null=True, blank=True)
    user_agent = models.TextField(_("user agent"), blank=True)
    referrer = models.TextField(_("referrer"), blank=True)
    spam_checked_at = models.DateTimeField(_("checked at"), null=True, blank=True)
    # When a check was last sent to the broker: the sweeper re-sends comments
    # still pending long after it (broker down at POST time, lost task).
    last_dispatched_at = models.DateTimeField(_("last dispatched at"), null=True, blank=True)
    # What the last check sent, so that spam/ham feedback sends the same data.
    akismet_payload = models.JSONField(_("akismet payload"), default=dict, blank=True)

    objects = CommentQuerySet.as_manager()

    class Meta:
        ordering = ["pub_date"]
        indexes = [models.Index(fields=["status", "last_dispatched_at"])]
        verbose_name = _("comment")
        verbose_name_plural = _("comments")

    def __str__(self) -> str:
        return gettext("%(name)s on %(entry)s") % {"name": self.name, "entry": self.entry}

    def get_absolute_url(self) -> str:
        return f"{self.entry.get_absolute_url()}#comment-{self.pk}"

    @property
    def is_held(self) -> bool:
        """Checked and still pending: it waits for a moderator (BLOG_HOLD_FOR_MODERATION),
        not for the spam check."""
        return self.status == self.Status.PENDING and self.spam_checked_at is not None


class CommentEvent(models.Model):
    class Kind(models.TextChoices):
        CHECKED = "checked", _("checked")
        CHECK_FAILED = "check_failed", _("check failed")
        RECHECKED = "rechecked", _("sent for re-check")
        MARKED_SPAM = "marked_spam", _("marked as spam")
        MARKED_HAM = "marked_ham", _("marked as not spam")
        PUBLISHED = "published", _("published")
        FEEDBACK_SENT = "feedback_sent", _("feedback sent")
        FEEDBACK_FAILED = "feedback_failed", _("feedback failed")
        # The blog's mails (blog.notices); the detail starts with which mail.
        MAIL_SENT = "mail_sent", _("mail sent")
        MAIL_FAILED = "mail_failed", _("mail failed")
        MAIL_QUEUED_AGAIN = "mail_queued_again", _("mail queued again")
        UNSUBSCRIBED = "unsubscribed", _("reply notices stopped")

    comment = models.ForeignKey(
        Comment, on_delete=models.CASCADE, related_name="events", verbose_name=_("comment")
    )
    created_at = models.DateTimeField(_("when"), default=timezone.now)
    kind = models.CharField(_("kind"), max_length=32, choices=Kind)
    # The moderator; empty for the spam filter and the sweeper.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("actor"),
    )
    detail = models.TextField(_("detail"), blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name = _("comment event")
        verbose_name_plural = _("comment events")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.created_at:%Y-%m-%d %H:%M})"


class SpamServiceStatus(models.Model):
    """One row (pk 1): what the spam service said about itself, for the admin.

    Counted with F expressions, so concurrent workers never lose a count.
    """

    discarded = models.PositiveBigIntegerField(_("blatant spam discarded"), default=0)
    alert_code = models.CharField(_("latest alert code"), max_length=32, blank=True)
    alert_message = models.TextField(_("latest alert message"), blank=True)
    alert_at = models.DateTimeField(_("latest alert received"), null=True, blank=True)

    class Meta:
        verbose_name = _("spam service status")
        verbose_name_plural = _("spam service status")

    def __str__(self) -> str:
        return gettext("spam service status")

    @classmethod
    def current(cls) -> Self:
        return cls.objects.get_or_create(pk=1)[0]

    @classmethod
    def count_discard(cls) -> None:
        if not cls.objects.filter(pk=1).update(discarded=models.F("discarded") + 1):
            cls.objects.get_or_create(pk=1)
            cls.objects.filter(pk=1).update(discarded=models.F("discarded") + 1)

    @classmethod
    def record_alert(cls, code: str, message: str) -> None:
        cls.objects.update_or_create(
            pk=1,
            defaults={
                "alert_code": code[:32],
                "alert_message": message,
                "alert_at": timezone.now(),
            },
        )
