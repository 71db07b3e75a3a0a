"""The admin's feed health page: how many feeds are in each state, which, and what changed.

Reached from the feeds' list ("Health"); at ``admin:djangofeeds_feed_health``.
"""

from datetime import timedelta

from django.contrib import admin
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from djangofeeds.health.digest import state_counts
from djangofeeds.models import Feed, Health, HealthChange

# Feeds listed under each state that needs a look; the feeds' list filtered has them all.
FEEDS_SHOWN = 50
CHANGES_SHOWN = 100
RECENT = timedelta(days=7)


def health_view(model_admin, request):
    """The page: counts per state, the feeds of each state but ``ok``, the week's changes."""
    changelist = reverse("admin:djangofeeds_feed_changelist")
    states = []
    for state, label, count in state_counts():
        feeds = [] if state == Health.OK else Feed.objects.filter(health=state)[:FEEDS_SHOWN]
        states.append(
            {
                "state": state,
                "label": label,
                "count": count,
                "feeds": feeds,
                "all_url": f"{changelist}?health__exact={state}",
            }
        )
    since = timezone.now() - RECENT
    changes = HealthChange.objects.filter(changed_at__gte=since).select_related("feed")
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": _("Feed health"),
        "states": states,
        "changes": changes[:CHANGES_SHOWN],
        "since": since,
    }
    return TemplateResponse(request, "admin/djangofeeds/feed/health.html", context)


@admin.register(HealthChange)
class HealthChangeAdmin(admin.ModelAdmin):
    """The record of changes, read-only: imports write it."""

    list_display = ["changed_at", "feed", "old", "new", "reason"]
    list_filter = ["new", "old"]
    list_select_related = ["feed"]
    search_fields = ["feed__title", "feed__url", "reason"]
    date_hierarchy = "changed_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
