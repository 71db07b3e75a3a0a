"""Feed health changes: each state a feed entered, when and why (the admin page, the digest)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from djangofeeds.models.feeds import Feed, Health


class HealthChange(models.Model):
    feed = models.ForeignKey(
        Feed, on_delete=models.CASCADE, related_name="health_changes", verbose_name=_("feed")
    )
    changed_at = models.DateTimeField(_("changed at"), db_index=True)
    old = models.CharField(_("from"), max_length=10, choices=Health.choices)
    new = models.CharField(_("to"), max_length=10, choices=Health.choices)
    reason = models.TextField(_("reason"), blank=True)

    class Meta:
        ordering = ["-changed_at", "-id"]
        verbose_name = _("health change")
        verbose_name_plural = _("health changes")

    def __str__(self) -> str:
        return f"{self.feed}: {self.old} → {self.new}"
