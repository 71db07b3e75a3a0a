"""Admin of keep/block rules: each previewed on the last posts before it is saved, and all
applied again to the stored posts on demand."""

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import flatten_fieldsets, unquote
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from djangofeeds.importing.judging import values_of
from djangofeeds.models import Feed, Post, Rule
from djangofeeds.rules.matching import compile_pattern
from djangofeeds.tasks import apply_rules

# The posts a preview reads (the newest stored in the rule's scope), and those it lists.
PREVIEW_POSTS = 500
PREVIEW_LISTED = 50


def preview(rule):
    """What ``rule`` (unsaved) would do to the newest posts of its scope: a dict for the page."""
    posts = Post.objects.select_related("feed").order_by("-id")
    if rule.feed_id:
        posts = posts.filter(feed_id=rule.feed_id)
    elif rule.category_id:
        posts = posts.filter(feed__categories=rule.category_id)
    if rule.field == Rule.Field.CATEGORY:
        posts = posts.prefetch_related("categories")
    read = list(posts[:PREVIEW_POSTS])
    matches = compile_pattern(rule.match, rule.pattern)
    fields = {rule.field}
    matched = [post for post in read if matches(values_of(post, fields)[rule.field])]
    if rule.action == Rule.Action.BLOCK:
        hidden = matched
    else:
        hidden = [post for post in read if post not in matched]
    return {
        "read": len(read),
        "matched": len(matched),
        "hidden": hidden[:PREVIEW_LISTED],
        "hidden_count": len(hidden),
    }


@admin.register(Rule)
class RuleAdmin(admin.ModelAdmin):
    list_display = ["__str__", "scope_label", "field", "match", "pattern", "action", "is_active"]
    list_filter = ["is_active", "action", "field", "match"]
    list_select_related = ["feed", "category"]
    search_fields = ["pattern"]
    autocomplete_fields = ["feed"]
    fields = ["action", "field", "match", "pattern", "feed", "category", "is_active"]
    actions = ["apply_to_stored_posts"]

    @admin.display(description=_("applies to"))
    def scope_label(self, rule):
        if rule.feed_id:
            return gettext("feed: %(feed)s") % {"feed": rule.feed}
        if rule.category_id:
            return gettext("category: %(category)s") % {"category": rule.category}
        return gettext("every feed")

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if request.method == "POST" and "_preview" in request.POST:
            return self.preview_view(request, object_id, form_url)
        return super().changeform_view(request, object_id, form_url, extra_context)

    def preview_view(self, request, object_id, form_url):
        """The form as posted, not saved, with what the rule would hide of the last posts."""
        obj = self.get_object(request, unquote(object_id)) if object_id else None
        allowed = (
            self.has_change_permission(request, obj) if obj else self.has_add_permission(request)
        )
        if not allowed:
            raise PermissionDenied
        fieldsets = self.get_fieldsets(request, obj)
        form_class = self.get_form(
            request, obj, change=obj is not None, fields=flatten_fieldsets(fieldsets)
        )
        form = form_class(request.POST, instance=obj)
        adminform = helpers.AdminForm(
            form, list(fieldsets), {}, self.get_readonly_fields(request, obj), model_admin=self
        )
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Preview of a rule"),
            "adminform": adminform,
            "object_id": object_id,
            "original": obj,
            "is_popup": False,
            "to_field": None,
            "media": self.media + adminform.media,
            "inline_admin_formsets": [],
            "errors": helpers.AdminErrorList(form, []),
            "preserved_filters": self.get_preserved_filters(request),
            "preview": preview(form.instance) if form.is_valid() else None,
        }
        return self.render_change_form(
            request, context, add=obj is None, change=obj is not None, obj=obj, form_url=form_url
        )

    @admin.action(
        description=_("Apply the rules again to the stored posts they cover"),
        permissions=["change"],
    )
    def apply_to_stored_posts(self, request, queryset):
        """Queue ``apply_rules`` for the feeds the selected rules cover (a global one: all)."""
        scopes = list(queryset.values_list("feed_id", "category_id"))
        feed_ids = None
        if all(feed or category for feed, category in scopes):
            in_categories = Feed.objects.filter(categories__in=[c for _, c in scopes if c])
            feed_ids = {feed for feed, _ in scopes if feed}
            feed_ids = sorted(feed_ids | set(in_categories.values_list("pk", flat=True)))
        try:
            apply_rules.delay(feed_ids)
        except Exception as exc:  # broker down: say so instead of a 500 page
            error = f"{type(exc).__name__}: {exc}"
            message = gettext("Could not queue the task: %(error)s") % {"error": error}
            self.message_user(request, message, messages.ERROR)
            return
        if feed_ids is None:
            message = gettext("Queued: the rules are applied again to the posts of every feed.")
        else:
            message = ngettext(
                "Queued: the rules are applied again to the posts of %d feed.",
                "Queued: the rules are applied again to the posts of %d feeds.",
                len(feed_ids),
            ) % len(feed_ids)
        self.message_user(request, message, messages.SUCCESS)
