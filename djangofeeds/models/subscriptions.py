"""WebSub push: a feed's subscription at its hub."""

import secrets

from django.db import models
from django.utils import timezone

from djangofeeds.models.feeds import Feed


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
