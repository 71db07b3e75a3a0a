"""Admin of WebSub: each feed's push state (hub, lease end, last push), read-only."""

from django.contrib import admin
from django.utils import timezone
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from djangofeeds.models import Subscription
from djangofeeds_blog_shared.changelist import SafeDateHierarchy

# The feed list's word for each state (the choices' labels are longer).
STATE_WORDS = {
    Subscription.State.PENDING: pgettext_lazy("push state", "pending"),
    Subscription.State.ACTIVE: pgettext_lazy("push state", "active"),
    Subscription.State.DENIED: pgettext_lazy("push state", "denied"),
    Subscription.State.UNSUBSCRIBED: pgettext_lazy("push state", "unsubscribed"),
}
SHOWN = ["state", "hub", "topic", "lease_expires_at", "last_push_at", "missed_at", "last_error"]


class SubscriptionInline(admin.StackedInline):
    """On a feed's page: its subscription at the hub, as the hub and pushes left it."""

    model = Subscription
    fields = readonly_fields = [*SHOWN, "requested_at"]
    can_delete = False
    extra = 0
    max_num = 0
    verbose_name = verbose_name_plural = _("push (WebSub)")


@admin.register(Subscription)
class SubscriptionAdmin(SafeDateHierarchy, admin.ModelAdmin):
    list_display = ["topic", "feed", *SHOWN[:1], "hub", "lease_expires_at", "last_push_at"]
    list_filter = ["state"]
    search_fields = ["topic", "hub", "feed__url"]
    list_select_related = ["feed"]
    # The token and secret are never shown: anyone who reads them could push content.
    readonly_fields = [*SHOWN, "feed", "requested_at", "created_at", "updated_at"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


def push_state(subscription):
    """The feed list's "push" column: the state, and the lease's end while active."""
    if subscription is None:
        return "-"
    if subscription.state == Subscription.State.ACTIVE and subscription.lease_expires_at:
        until = f"{timezone.localtime(subscription.lease_expires_at):%Y-%m-%d %H:%M}"
        return gettext("active until %(date)s") % {"date": until}
    return STATE_WORDS.get(subscription.state, subscription.state)
