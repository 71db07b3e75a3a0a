"""WebSub push: a feed's subscription at its hub."""

import secrets
from datetime import datetime

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from djangofeeds.models.feeds import Feed


def new_callback_token() -> str:
    """A callback path segment nobody can guess (256 bits)."""
    return secrets.token_urlsafe(32)


def new_secret() -> str:
    """The ``hub.secret`` a hub signs pushed content with."""
    return secrets.token_urlsafe(32)


class Subscription(models.Model):
    """A WebSub subscription of one feed at its hub (djangofeeds.push.subscriber)."""

    class State(models.TextChoices):
        PENDING = "pending", _("pending (waiting for the hub's verification)")
        ACTIVE = "active", _("active")
        DENIED = "denied", _("denied by the hub")
        UNSUBSCRIBED = "unsubscribed", _("unsubscribed")

    # SET_NULL: a deleted feed's subscription stays until the hub is told (renewal task).
    feed = models.OneToOneField(
        Feed,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="subscription",
        verbose_name=_("feed"),
    )
    hub = models.URLField(_("hub"), max_length=2000)
    topic = models.URLField(_("topic"), max_length=2000)
    token = models.CharField(max_length=64, unique=True, default=new_callback_token, editable=False)
    secret = models.CharField(max_length=100, default=new_secret, editable=False)
    state = models.CharField(
        _("state"), max_length=20, choices=State.choices, default=State.PENDING
    )
    lease_expires_at = models.DateTimeField(_("lease ends"), null=True, blank=True)
    last_push_at = models.DateTimeField(_("last push"), null=True, blank=True)
    # A poll found posts no push had brought: polling is back to the feed's own pace.
    missed_at = models.DateTimeField(_("push missed posts at"), null=True, blank=True)
    requested_at = models.DateTimeField(_("last request to the hub"), null=True, blank=True)
    last_error = models.TextField(_("last error"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["state", "lease_expires_at"], name="websub_lease_idx")]
        verbose_name = _("subscription")
        verbose_name_plural = _("subscriptions")

    def __str__(self) -> str:
        return gettext("%(topic)s at %(hub)s (%(state)s)") % {
            "topic": self.topic,
            "hub": self.hub,
            "state": self.state,
        }

    def pushing(self, now: datetime | None = None) -> bool:
        """Whether pushes arrive: verified, leased, and no poll found posts a push missed."""
        now = now or timezone.now()
        return (
            self.state == self.State.ACTIVE
            and self.lease_expires_at is not None
            and self.lease_expires_at > now
            and self.last_push_at is not None
            and (self.missed_at is None or self.last_push_at > self.missed_at)
        )
