"""Admin of feeds: status at a glance, what needs attention, imports on demand."""

from datetime import timedelta

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.template.defaultfilters import truncatechars
from django.urls import path
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from djangofeeds.admin.common import URL_FIELDS, count_of
from djangofeeds.admin.health import health_view
from djangofeeds.admin.websub import SubscriptionInline, push_state
from djangofeeds.forms import FeedAddForm
from djangofeeds.importing import records
from djangofeeds.importing.dispatch import enqueue_imports
from djangofeeds.models import Feed, Post
from djangofeeds_blog_shared.changelist import SafeDateHierarchy

# Import runs shown on a feed's change page; the rest are one click away.
RECENT_RUNS = 10
# A due feed not checked this long after its time: beat or the workers are not running.
OVERDUE_AFTER = timedelta(hours=1)


class NeedsAttentionFilter(admin.SimpleListFilter):
    """What an operator should look at first, with how many feeds each choice has."""

    title = _("needs attention")
    parameter_name = "attention"

    def problems(self):
        late = timezone.now() - OVERDUE_AFTER
        return {
            "failing": Q(error_count__gt=0),
            "overdue": Q(error_count=0)
            & (
                Q(next_check_at__lt=late)
                | Q(next_check_at__isnull=True, last_checked_at__isnull=True, created_at__lt=late)
            ),
        }

    def lookups(self, request, model_admin):
        active = Feed.objects.active()
        problems = self.problems()
        counts = active.aggregate(**{name: Count("pk", filter=q) for name, q in problems.items()})
        return [
            ("any", gettext("any (%(count)d)") % {"count": counts["failing"] + counts["overdue"]}),
            ("failing", gettext("failing (%(count)d)") % {"count": counts["failing"]}),
            ("overdue", gettext("not checked on time (%(count)d)") % {"count": counts["overdue"]}),
        ]

    def queryset(self, request, queryset):
        problems = self.problems()
        if self.value() == "any":
            return queryset.filter(problems["failing"] | problems["overdue"], is_active=True)
        if self.value() in problems:
            return queryset.filter(problems[self.value()], is_active=True)
        return queryset


@admin.register(Feed)
class FeedAdmin(SafeDateHierarchy, admin.ModelAdmin):
    list_display = [
        "__str__",
        "url",
        "is_active",
        "health",
        "last_status",
        "last_checked_at",
        "error_summary",
        "error_count",
        "next_check_at",
        "post_count",
        "push",
    ]
    list_filter = [NeedsAttentionFilter, "health", "is_active", "last_status"]
    search_fields = ["title", "url", "link"]
    readonly_fields = [
        "etag",
        "last_modified",
        "last_checked_at",
        "last_success_at",
        "last_status",
        "last_http_status",
        "last_error",
        "error_count",
        "image_url",
        "fence",
        "claimed_at",
        "poll_interval",
        "newest_entry_at",
        "entry_interval",
        "health",
        "health_changed_at",
        "failing_since",
        "redirect_url",
        "redirect_count",
        "redirect_since",
        "created_at",
        "category_list",
    ]
    fieldsets = [
        (None, {"fields": ["url", "title", "link", "description", "is_active", "next_check_at"]}),
        (_("Last import"), {"fields": readonly_fields}),
    ]
    # Adding takes a feed's URL or a page's (djangofeeds.forms), as contrib.auth's UserAdmin
    # has its own add form.
    add_form = FeedAddForm
    add_fieldsets = [
        (None, {"fields": ["url", "feed_choice", "title", "link", "description", "is_active"]}),
    ]
    actions = ["import_now", "activate", "deactivate", "reset_errors"]
    formfield_overrides = URL_FIELDS
    show_full_result_count = False
    inlines = [SubscriptionInline]

    def get_urls(self):
        health = path(
            "health/", self.admin_site.admin_view(self.health_page), name="djangofeeds_feed_health"
        )
        return [health, *super().get_urls()]

    def health_page(self, request):
        """The feed health page (``admin.health``)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        return health_view(self, request)

    def get_inlines(self, request, obj):
        # A feed being added has no push subscription yet: nothing to show.
        return self.inlines if obj is not None else []

    def get_fieldsets(self, request, obj=None):
        return self.add_fieldsets if obj is None else super().get_fieldsets(request, obj)

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = self.add_form
        return super().get_form(request, obj, **kwargs)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        found = getattr(form, "found", None)
        if found and found.page:
            self.message_user(
                request,
                gettext("Found the feed %(url)s on %(page)s.")
                % {"url": obj.url, "page": found.page},
            )
        if found and found.unchecked:
            self.message_user(
                request,
                gettext("%(url)s could not be checked (%(why)s); the importer will retry it.")
                % {"url": obj.url, "why": found.unchecked},
                messages.WARNING,
            )

    def get_queryset(self, request):
        rows = super().get_queryset(request).select_related("subscription")
        return rows.annotate(post_count=count_of(Post, "feed"))

    @admin.display(description=_("push (WebSub)"))
    def push(self, feed):
        return push_state(getattr(feed, "subscription", None))

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        # The panel under the form (admin/djangofeeds/feed/change_form.html).
        if obj is not None:
            runs = obj.import_runs.all()
            context["recent_runs"] = runs[:RECENT_RUNS]
            context["run_count"] = runs.count()
        return super().render_change_form(request, context, add, change, form_url, obj)

    @admin.display(description=_("posts"), ordering="post_count")
    def post_count(self, feed):
        return feed.post_count

    @admin.display(description=_("last error"))
    def error_summary(self, feed):
        return truncatechars(feed.last_error, 80)

    @admin.display(description=_("categories"))
    def category_list(self, feed):
        return ", ".join(str(category) for category in feed.categories.all()) or "-"

    @admin.action(description=_("Import now"), permissions=["change"])
    def import_now(self, request, queryset):
        try:
            queued, waiting = enqueue_imports(list(queryset.values_list("url", flat=True)))
        except Exception as exc:  # broker or cache down: say so instead of a 500 page
            self.message_user(
                request,
                gettext("Could not queue the imports: %(error)s")
                % {"error": f"{type(exc).__name__}: {exc}"},
                messages.ERROR,
            )
            return
        if queued:
            self.message_user(
                request,
                ngettext("Queued an import of %d feed.", "Queued imports of %d feeds.", len(queued))
                % len(queued),
                messages.SUCCESS,
            )
        if waiting:
            self.message_user(
                request,
                ngettext(
                    "%d feed was already queued.", "%d feeds were already queued.", len(waiting)
                )
                % len(waiting),
                messages.WARNING,
            )

    @admin.action(description=_("Activate"), permissions=["change"])
    def activate(self, request, queryset):
        count = queryset.update(is_active=True)
        self.message_user(
            request, ngettext("Activated %d feed.", "Activated %d feeds.", count) % count
        )

    @admin.action(description=_("Deactivate"), permissions=["change"])
    def deactivate(self, request, queryset):
        count = records.deactivate(
            queryset, f"deactivated by {request.user.get_username()} in the admin"
        )
        self.message_user(
            request, ngettext("Deactivated %d feed.", "Deactivated %d feeds.", count) % count
        )

    @admin.action(description=_("Reset errors (check again now)"), permissions=["change"])
    def reset_errors(self, request, queryset):
        count = queryset.update(
            error_count=0, failing_since=None, last_error="", next_check_at=timezone.now()
        )
        self.message_user(
            request,
            ngettext("Reset the errors of %d feed.", "Reset the errors of %d feeds.", count)
            % count,
        )
