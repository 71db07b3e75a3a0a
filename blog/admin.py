"""Admin for entries and comments: moderation actions with feedback to Akismet, and history."""

from django.contrib import admin, messages
from django.db import models
from django.template.defaultfilters import truncatechars
from django.utils.translation import ngettext

from blog import moderation
from blog.models import Comment, CommentEvent, Entry


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ["title", "pub_date", "is_published"]
    list_filter = ["is_published", "pub_date"]
    search_fields = ["title", "body"]
    prepopulated_fields = {"slug": ["title"]}
    date_hierarchy = "pub_date"


class CommentEventInline(admin.TabularInline):
    model = CommentEvent
    fields = ["created_at", "kind", "actor", "detail"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


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
class CommentAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "entry",
        "excerpt",
        "status",
        "is_blatant",
        "pub_date",
        "spam_checked_at",
    ]
    list_filter = ["status", "is_blatant", "entry"]
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
    actions = ["mark_spam", "mark_ham", "recheck", "publish"]

    @admin.display(description="comment")
    def excerpt(self, obj):
        return truncatechars(obj.comment, 80)

    @admin.action(description="Mark as spam (and tell Akismet)")
    def mark_spam(self, request, queryset):
        count = moderation.mark_spam(queryset, actor=request.user)
        report(self, request, count, len(queryset), "marked as spam", "already spam")

    @admin.action(description="Mark as not spam and publish (and tell Akismet)")
    def mark_ham(self, request, queryset):
        count = moderation.mark_ham(queryset, actor=request.user)
        report(self, request, count, len(queryset), "marked as not spam", "already published")

    @admin.action(description="Re-check for spam")
    def recheck(self, request, queryset):
        count = moderation.recheck(queryset, actor=request.user, detail="asked by a moderator")
        report(self, request, count, len(queryset), "sent for re-checking", "not pending")

    @admin.action(description="Publish")
    def publish(self, request, queryset):
        count = moderation.publish(queryset, actor=request.user)
        report(self, request, count, len(queryset), "published", "not pending")
