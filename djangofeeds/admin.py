"""Admin for feeds: status at a glance, imports on demand, runs and posts read-only."""

from datetime import timedelta

from django.contrib import admin, messages
from django.contrib.admin.views.main import ORDER_VAR
from django.core.cache import cache
from django.db import models
from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404
from django.template.defaultfilters import truncatechars
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import ngettext

from djangofeeds import query
from djangofeeds.changelist import SafeDateHierarchy
from djangofeeds.dispatch import enqueue_imports
from djangofeeds.forms import FeedAddForm
from djangofeeds.models import Category, Enclosure, Feed, ImportRun, Outcome, Post, RefreshRun
from djangofeeds.search import search_posts
from djangofeeds.websub_admin import SubscriptionInline, push_state

# A URL typed without a scheme is taken as https (Django 6's default).
URL_FIELDS = {models.URLField: {"assume_scheme": "https"}}
# Import runs shown on a feed's change page; the rest are one click away.
RECENT_RUNS = 10
# A due feed not checked this long after its time: beat or the workers are not running.
OVERDUE_AFTER = timedelta(hours=1)
# Categories offered in the posts' filter (the most used); any other is reached by its link.
CATEGORY_CHOICES = 30
CATEGORY_CACHE = 300  # seconds
TOP_CATEGORIES_KEY = "djangofeeds-admin-top-categories"
NO_ROW = -1  # an id no row has


def count_of(model, field):
    """How many ``model`` rows point at each listed row, counted for the shown page only.

    A correlated subquery on the foreign key's index: a JOIN and GROUP BY
    would count every post of every feed before the page is cut out.
    """
    rows = model.objects.filter(**{field: OuterRef("pk")}).order_by().values(field)
    return Coalesce(Subquery(rows.annotate(n=Count("*")).values("n")), 0)


class ReadOnlyAdmin(SafeDateHierarchy, admin.ModelAdmin):
    """Rows written by the importer: to look at, not to edit (by date, any year asked)."""

    formfield_overrides = URL_FIELDS

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class NeedsAttentionFilter(admin.SimpleListFilter):
    """What an operator should look at first, with how many feeds each choice has."""

    title = "needs attention"
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
            ("any", f"any ({counts['failing'] + counts['overdue']})"),
            ("failing", f"failing ({counts['failing']})"),
            ("overdue", f"not checked on time ({counts['overdue']})"),
        ]

    def queryset(self, request, queryset):
        problems = self.problems()
        if self.value() == "any":
            return queryset.filter(problems["failing"] | problems["overdue"], is_active=True)
        if self.value() in problems:
            return queryset.filter(problems[self.value()], is_active=True)
        return queryset


@admin.register(Feed)
class FeedAdmin(admin.ModelAdmin):
    list_display = [
        "__str__",
        "url",
        "is_active",
        "last_status",
        "last_checked_at",
        "error_summary",
        "error_count",
        "next_check_at",
        "post_count",
        "push",
    ]
    list_filter = [NeedsAttentionFilter, "is_active", "last_status"]
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
        "fence",
        "claimed_at",
        "poll_interval",
        "newest_entry_at",
        "created_at",
        "category_list",
    ]
    fieldsets = [
        (None, {"fields": ["url", "title", "link", "description", "is_active", "next_check_at"]}),
        ("Last import", {"fields": readonly_fields}),
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
            self.message_user(request, f"Found the feed {obj.url} on {found.page}.")
        if found and found.unchecked:
            self.message_user(
                request,
                f"{obj.url} could not be checked ({found.unchecked}); the importer will retry it.",
                messages.WARNING,
            )

    def get_queryset(self, request):
        rows = super().get_queryset(request).select_related("subscription")
        return rows.annotate(post_count=count_of(Post, "feed"))

    @admin.display(description="push (WebSub)")
    def push(self, feed):
        return push_state(getattr(feed, "subscription", None))

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        # The panel under the form (admin/djangofeeds/feed/change_form.html).
        if obj is not None:
            runs = obj.import_runs.all()
            context["recent_runs"] = runs[:RECENT_RUNS]
            context["run_count"] = runs.count()
        return super().render_change_form(request, context, add, change, form_url, obj)

    @admin.display(description="posts", ordering="post_count")
    def post_count(self, feed):
        return feed.post_count

    @admin.display(description="last error")
    def error_summary(self, feed):
        return truncatechars(feed.last_error, 80)

    @admin.display(description="categories")
    def category_list(self, feed):
        return ", ".join(str(category) for category in feed.categories.all()) or "-"

    @admin.action(description="Import now", permissions=["change"])
    def import_now(self, request, queryset):
        try:
            queued, waiting = enqueue_imports(list(queryset.values_list("url", flat=True)))
        except Exception as exc:  # broker or cache down: say so instead of a 500 page
            self.message_user(
                request, f"Could not queue the imports: {type(exc).__name__}: {exc}", messages.ERROR
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

    @admin.action(description="Activate", permissions=["change"])
    def activate(self, request, queryset):
        count = queryset.update(is_active=True)
        self.message_user(
            request, ngettext("Activated %d feed.", "Activated %d feeds.", count) % count
        )

    @admin.action(description="Deactivate", permissions=["change"])
    def deactivate(self, request, queryset):
        count = queryset.deactivate(f"deactivated by {request.user.get_username()} in the admin")
        self.message_user(
            request, ngettext("Deactivated %d feed.", "Deactivated %d feeds.", count) % count
        )

    @admin.action(description="Reset errors (check again now)", permissions=["change"])
    def reset_errors(self, request, queryset):
        count = queryset.update(error_count=0, last_error="", next_check_at=timezone.now())
        self.message_user(
            request,
            ngettext("Reset the errors of %d feed.", "Reset the errors of %d feeds.", count)
            % count,
        )


class CategoryFilter(admin.SimpleListFilter):
    """The most used categories; any category works as ``?category=<id>`` (its admin links here)."""

    title = "category"
    parameter_name = "category"

    def lookups(self, request, model_admin):
        # Counting every post's categories is the one slow part: done every few minutes.
        try:
            choices = cache.get_or_set(TOP_CATEGORIES_KEY, self.top, CATEGORY_CACHE)
        except Exception:  # the cache is down: count now rather than fail the page
            choices = self.top()
        chosen = self.chosen(request)
        if chosen is not None and str(chosen) not in dict(choices):
            choices = [*choices, *((str(c.pk), str(c)) for c in Category.objects.filter(pk=chosen))]
        return choices

    def chosen(self, request):
        """The category id asked for; None when malformed (no filter, as on /feeds/)."""
        try:
            return query.object_id(request, self.parameter_name)
        except Http404:
            return NO_ROW  # a number no id can be: an empty list, as for an unknown id

    @staticmethod
    def top():
        top = Category.objects.annotate(uses=Count("posts")).order_by("-uses", "name")
        return [(str(c.pk), str(c)) for c in top[:CATEGORY_CHOICES]]

    def queryset(self, request, queryset):
        chosen = self.chosen(request)
        return queryset if chosen is None else queryset.filter(categories=chosen)


class EnclosureInline(admin.TabularInline):
    model = Enclosure
    fields = ["url", "type", "length"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Post)
class PostAdmin(ReadOnlyAdmin):
    list_display = ["title", "feed", "author", "published_at", "imported_at"]
    list_filter = [CategoryFilter, "feed", "published_at"]
    list_select_related = ["feed"]
    # Shown as the search box; get_search_results searches the full text instead.
    search_fields = ["title", "content"]
    search_help_text = (
        "Words of the title or content, best matches first; a category's name; a post's URL."
    )
    date_hierarchy = "published_at"
    inlines = [EnclosureInline]
    # No COUNT(*) of millions of rows on every changelist page.
    show_full_result_count = False

    def get_search_results(self, request, queryset, search_term):
        """The pages' full-text search (djangofeeds.search); a URL finds its post exactly."""
        term = search_term.strip()
        if not term:
            return queryset, False
        if "://" in term and " " not in term:
            return queryset.filter(Q(link=term) | Q(guid=term)), False
        # A category named exactly so: its posts too, as the old search found them.
        categories = Category.objects.filter(name__iexact=term)
        tagged = Post.categories.through.objects.filter(category__in=categories)
        also = Q(pk__in=tagged.values("post_id")) if categories.exists() else None
        found = search_posts(queryset, term, also=also)  # best match first...
        if ORDER_VAR in request.GET:  # ...unless a column header was clicked
            found = found.order_by(*queryset.query.order_by)
        return found, False


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["name", "domain", "post_count", "posts_link"]
    search_fields = ["name", "domain"]
    show_full_result_count = False

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(post_count=count_of(Post.categories.through, "category"))
        )

    @admin.display(description="posts", ordering="post_count")
    def post_count(self, category):
        return category.post_count

    @admin.display(description="")
    def posts_link(self, category):
        url = reverse("admin:djangofeeds_post_changelist")
        return format_html('<a href="{}?category={}">Show posts</a>', url, category.pk)


@admin.register(ImportRun)
class ImportRunAdmin(ReadOnlyAdmin):
    list_display = [
        "feed",
        "started_at",
        "outcome",
        "http_status",
        "created",
        "updated",
        "fetch_ms",
        "parse_ms",
        "store_ms",
        "worker",
        "error_summary",
    ]
    list_filter = ["outcome", "started_at", "feed"]
    list_select_related = ["feed"]
    search_fields = ["feed__url", "feed__title", "task_id", "error"]
    date_hierarchy = "started_at"
    # Millions of runs: no COUNT(*) of the whole table on every page.
    show_full_result_count = False

    @admin.display(description="error")
    def error_summary(self, run):
        return truncatechars(run.error, 80)


@admin.register(RefreshRun)
class RefreshRunAdmin(ReadOnlyAdmin):
    """Refresh rounds: the current ones counted live from their import runs."""

    list_display = ["started_at", "finished_at", "feeds", "progress", "outcomes"]
    date_hierarchy = "started_at"

    @admin.display(description="done")
    def progress(self, summary):
        if summary.finished_at is not None:
            done = summary.feeds - summary.unfinished
        else:
            done, _ = summary.progress()
        return f"{done}/{summary.feeds}"

    @admin.display(description="outcomes")
    def outcomes(self, summary):
        if summary.finished_at is None:
            _, counts = summary.progress()
        else:
            counts = {name: getattr(summary, name) for name in Outcome.values}
        parts = [f"{count} {Outcome(name).label}" for name, count in counts.items() if count]
        if summary.unfinished:
            parts.append(f"{summary.unfinished} never run (claim timed out)")
        return ", ".join(parts) or "-"
