"""Admin for entries and comments: moderation actions with feedback to Akismet, and history."""

from datetime import timedelta

from django.contrib import admin, messages
from django.db import models
from django.db.models import Count, Exists, OuterRef, Q
from django.template.defaultfilters import truncatechars
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext_lazy
from django.utils.translation import gettext_lazy as _

from blog import conf, moderation, spam
from blog.models import Comment, CommentEvent, Entry, SpamServiceStatus
from djangofeeds_blog_shared.changelist import SafeDateHierarchy


@admin.register(Entry)
class EntryAdmin(SafeDateHierarchy, admin.ModelAdmin):
    list_display = ["title", "pub_date", "is_published"]
    list_filter = ["is_published", "pub_date"]
    search_fields = ["title", "body"]
    prepopulated_fields = {"slug": ["title"]}
    date_hierarchy = "pub_date"


class CommentEventInline(admin.TabularInline):
    model = CommentEvent
    verbose_name_plural = _("history (checks and moderator decisions)")
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

    title = _("needs attention")
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
            (
                "pending_long",
                gettext("pending over %(minutes)d min (%(count)d)")
                % {"minutes": minutes, "count": counts["pending_long"]},
            ),
            (
                "check_failed",
                gettext("pending, check failed (%(count)d)") % {"count": counts["check_failed"]},
            ),
        ]

    def queryset(self, request, queryset):
        problems = self.problems()
        if self.value() in problems:
            return queryset.pending().filter(problems[self.value()])
        return queryset


def report(modeladmin, request, changed, selected, done, skipped_because):
    """One message per action: how many changed, and why the others did not.

    ``done`` and ``skipped_because`` are whole sentences counted by ``%(count)d``
    (``ngettext_lazy(..., "count")``): each language words and agrees them its own way.
    """
    text = done % {"count": changed}
    level = messages.SUCCESS if changed else messages.WARNING
    if skipped := selected - changed:
        text += " " + skipped_because % {"count": skipped}
    modeladmin.message_user(request, text, level)


NOT_PENDING = ngettext_lazy(
    "%(count)d skipped: not pending.", "%(count)d skipped: not pending.", "count"
)


def comment_link(comment):
    """A link to the comment's change page, named after its author (escaped)."""
    url = reverse("admin:blog_comment_change", args=[comment.pk])
    return format_html(
        '<a href="{}">{}: {}</a>', url, comment.name, truncatechars(comment.comment, 60)
    )


@admin.register(Comment)
class CommentAdmin(SafeDateHierarchy, admin.ModelAdmin):
    list_display = [
        "name",
        "entry",
        "excerpt",
        "in_reply_to",
        "status",
        "is_blatant",
        "pub_date",
        "spam_checked_at",
    ]
    list_filter = [NeedsAttentionFilter, "status", "is_blatant", "entry"]
    search_fields = ["name", "email_address", "homepage", "comment", "user_ip"]
    list_select_related = ["entry", "parent"]
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
    fields = [
        "entry",
        "name",
        "email_address",
        "homepage",
        "comment",
        "in_reply_to",
        "replies",
        "notify_replies",
        *readonly_fields,
    ]
    # The thread: links to the comment replied to and to the replies.
    readonly_fields = [*readonly_fields, "in_reply_to", "replies"]
    inlines = [CommentEventInline]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    # Each needs the "change comment" permission: a view-only moderator cannot run them.
    actions = ["mark_spam", "mark_ham", "recheck", "publish"]

    def changelist_view(self, request, extra_context=None):
        """The list, under a banner: blatant spam discarded, Akismet's latest alert, and
        the key's usage (asked when the page opens, kept a while; a failure is shown)."""
        context = {"spam_status": SpamServiceStatus.current()}
        if spam.backend_name() == "akismet":
            from blog import akismet_client  # only now: it imports the akismet library

            context["akismet_usage"] = akismet_client.usage()
        return super().changelist_view(request, context | (extra_context or {}))

    @admin.display(description=_("comment"))
    def excerpt(self, obj):
        return truncatechars(obj.comment, 80)

    @admin.display(description=_("in reply to"))
    def in_reply_to(self, obj):
        if obj.parent is None:
            return "—"
        return comment_link(obj.parent)

    @admin.display(description=_("replies"))
    def replies(self, obj):
        if obj.pk is None:
            return "—"
        replies = obj.replies.order_by("pub_date", "pk")
        links = format_html_join(
            "", "<li>{} ({})</li>", ((comment_link(r), r.get_status_display()) for r in replies)
        )
        return format_html("<ul>{}</ul>", links) if links else "—"

    @admin.action(description=_("Mark as spam (and tell Akismet)"), permissions=["change"])
    def mark_spam(self, request, queryset):
        count = moderation.mark_spam(queryset, actor=request.user)
        report(
            self,
            request,
            count,
            len(queryset),
            ngettext_lazy(
                "%(count)d comment marked as spam.", "%(count)d comments marked as spam.", "count"
            ),
            ngettext_lazy(
                "%(count)d skipped: already spam.", "%(count)d skipped: already spam.", "count"
            ),
        )

    @admin.action(
        description=_("Mark as not spam and publish (and tell Akismet)"), permissions=["change"]
    )
    def mark_ham(self, request, queryset):
        count = moderation.mark_ham(queryset, actor=request.user)
        report(
            self,
            request,
            count,
            len(queryset),
            ngettext_lazy(
                "%(count)d comment marked as not spam.",
                "%(count)d comments marked as not spam.",
                "count",
            ),
            ngettext_lazy(
                "%(count)d skipped: already published.",
                "%(count)d skipped: already published.",
                "count",
            ),
        )

    @admin.action(description=_("Re-check for spam"), permissions=["change"])
    def recheck(self, request, queryset):
        count = moderation.recheck(
            queryset, actor=request.user, detail="asked by a moderator", reason="recheck_queue"
        )
        report(
            self,
            request,
            count,
            len(queryset),
            ngettext_lazy(
                "%(count)d comment sent for re-checking.",
                "%(count)d comments sent for re-checking.",
                "count",
            ),
            NOT_PENDING,
        )

    @admin.action(description=_("Publish"), permissions=["change"])
    def publish(self, request, queryset):
        count = moderation.publish(queryset, actor=request.user)
        report(
            self,
            request,
            count,
            len(queryset),
            ngettext_lazy("%(count)d comment published.", "%(count)d comments published.", "count"),
            NOT_PENDING,
        )
