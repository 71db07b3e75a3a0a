"""Admin for entries and comments: moderation actions with feedback to Akismet, and history."""

from datetime import timedelta

from django.contrib import admin, messages
from django.db import models
from django.db.models import Count, Exists, OuterRef, Q
from django.template.defaultfilters import truncatechars
from django.utils import timezone
from django.utils.translation import ngettext

from blog import conf, moderation
from blog.models import Comment, CommentEvent, Entry
from djangofeeds.changelist import SafeDateHierarchy


@admin.register(Entry)
class EntryAdmin(SafeDateHierarchy, admin.ModelAdmin):
    list_display = ["title", "pub_date", "is_published"]
    list_filter = ["is_published", "pub_date"]
    search_fields = ["title", "body"]
    prepopulated_fields = {"slug": ["title"]}
    date_hierarchy = "pub_date"


class CommentEventInline(admin.TabularInline):
    model = CommentEvent
    verbose_name_plural = "history (checks and moderator decisions)"
    fields = ["created_at", "kind", "actor", "detail"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class NeedsAttentionFilter(admin.SimpleListFilter):
    """Comments a moderator should look at, with how many each choice has."""

    title = "needs attention"
    parameter_name = "attention"

    def problems(self):
        # Longer than the sweeper waits before sending a comment again: the
        # check is not just slow, something is in the way (broker, worker, Akismet).
        cutoff = timezone.now() - timedelta(minutes=conf.BLOG_SPAM_RECHECK_AFTER_MINUTES)
        failed = CommentEvent.objects.filter(
            comment=OuterRef("pk"), kind=CommentEvent.Kind.CHECK_FAILED
        )
        return {
            "pending_long": Q(pub_date__lt=cutoff),
            "check_failed": Q(Exists(failed)),
        }

    def lookups(self, request, model_admin):
        problems = self.problems()
        counts = Comment.objects.pending().aggregate(
            **{name: Count("pk", filter=q) for name, q in problems.items()}
        )
        minutes = conf.BLOG_SPAM_RECHECK_AFTER_MINUTES
        return [
            ("pending_long", f"pending over {minutes} min ({counts['pending_long']})"),
            ("check_failed", f"pending, check failed ({counts['check_failed']})"),
        ]

    def queryset(self, request, queryset):
        problems = self.problems()
        if self.value() in problems:
            return queryset.pending().filter(problems[self.value()])
        return queryset


def report(modeladmin, request, changed, selected, done, skipped_because):
    """One message per action: how many changed, and why the others did not."""
    text = ngettext("%(count)d comment %(done)s.", "%(count)d comments %(done)s.", changed) % {
        "count": changed,
        "done": done,
    }
    level = messages.SUCCESS if changed else messages.WARNING
    if skipped := selected - changed:
        text += " " + ngettext(
            "%(count)d skipped: %(why)s.", "%(count)d skipped: %(why)s.", skipped
        ) % {"count": skipped, "why": skipped_because}
    modeladmin.message_user(request, text, level)


@admin.register(Comment)
class CommentAdmin(SafeDateHierarchy, admin.ModelAdmin):
    list_display = [
        "name",
        "entry",
        "excerpt",
        "status",
        "is_blatant",
        "pub_date",
        "spam_checked_at",
    ]
    list_filter = [NeedsAttentionFilter, "status", "is_blatant", "entry"]
    search_fields = ["name", "email_address", "homepage", "comment", "user_ip"]
    list_select_related = ["entry"]
    date_hierarchy = "pub_date"
    readonly_fields = [
        "status",
        "is_blatant",
        "pub_date",
        "user_ip",
        "user_agent",
        "referrer",
        "spam_checked_at",
        "last_dispatched_at",
        "akismet_payload",
    ]
    fields = ["entry", "name", "email_address", "homepage", "comment", *readonly_fields]
    inlines = [CommentEventInline]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    # Each needs the "change comment" permission: a view-only moderator cannot run them.
    actions = ["mark_spam", "mark_ham", "recheck", "publish"]

    @admin.display(description="comment")
    def excerpt(self, obj):
        return truncatechars(obj.comment, 80)

    @admin.action(description="Mark as spam (and tell Akismet)", permissions=["change"])
    def mark_spam(self, request, queryset):
        count = moderation.mark_spam(queryset, actor=request.user)
        report(self, request, count, len(queryset), "marked as spam", "already spam")

    @admin.action(
        description="Mark as not spam and publish (and tell Akismet)", permissions=["change"]
    )
    def mark_ham(self, request, queryset):
        count = moderation.mark_ham(queryset, actor=request.user)
        report(self, request, count, len(queryset), "marked as not spam", "already published")

    @admin.action(description="Re-check for spam", permissions=["change"])
    def recheck(self, request, queryset):
        count = moderation.recheck(queryset, actor=request.user, detail="asked by a moderator")
        report(self, request, count, len(queryset), "sent for re-checking", "not pending")

    @admin.action(description="Publish", permissions=["change"])
    def publish(self, request, queryset):
        count = moderation.publish(queryset, actor=request.user)
        report(self, request, count, len(queryset), "published", "not pending")
