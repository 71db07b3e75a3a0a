"""Admin of posts and categories: read-only posts, found by full-text search or category."""

from django.contrib import admin
from django.contrib.admin.views.main import ORDER_VAR
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, Q
from django.http import Http404
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from djangofeeds.admin.common import ReadOnlyAdmin, count_of
from djangofeeds.models import Category, Enclosure, Post
from djangofeeds.search import search_posts
from djangofeeds.stories import grouping
from djangofeeds_blog_shared import query
from djangofeeds_blog_shared.changelist import SafeDateHierarchy

# A post's change page (read-only, as imported): its fields, then a podcast episode's details
# (parsing.podcasts.PodcastDetails) apart.
POST_FIELDSET = ["feed", "guid", "title", "link", "author", "content"]
POST_FIELDSET += ["published_at", "updated_at", "categories", "is_blocked", "blocked_by"]
POST_FIELDSET += ["duplicate_of", "repeated_in"]
PODCAST_FIELDSET = ["duration", "image_url", "season", "episode", "explicit"]
PODCAST_FIELDSET += ["transcript_url", "transcript_type", "chapters_url"]
# Categories offered in the posts' filter (the most used); any other is reached by its link.
CATEGORY_CHOICES = 30
CATEGORY_CACHE = 300  # seconds
TOP_CATEGORIES_KEY = "djangofeeds-admin-top-categories"
NO_ROW = -1  # an id no row has


class CategoryFilter(admin.SimpleListFilter):
    """The most used categories; any category works as ``?category=<id>`` (its admin links here)."""

    title = _("category")
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
    list_display = ["title", "feed", "author", "published_at", "imported_at", "is_blocked"]
    actions = ["split_from_story"]
    list_filter = [CategoryFilter, "is_blocked", "feed", "published_at"]
    list_select_related = ["feed"]
    # Shown as the search box; get_search_results searches the full text instead.
    search_fields = ["title", "content"]
    search_help_text = _(
        "Words of the title or content, best matches first; a category's name; a post's URL."
    )
    date_hierarchy = "published_at"
    fieldsets = [(None, {"fields": POST_FIELDSET}), (_("Podcast"), {"fields": PODCAST_FIELDSET})]
    inlines = [EnclosureInline]
    # No COUNT(*) of millions of rows on every changelist page.
    show_full_result_count = False

    @admin.display(description=_("repeated in"))
    def repeated_in(self, post):
        """The feeds whose posts repeat this one (djangofeeds.stories): hidden behind it."""
        feeds = [str(repeat.feed) for repeat in post.duplicates.select_related("feed")]
        return ", ".join(feeds) or "-"

    def has_split_permission(self, request):
        return request.user.has_perm("djangofeeds.change_post")

    @admin.action(
        description=_("Split from their stories (show each on its own)"), permissions=["split"]
    )
    def split_from_story(self, request, queryset):
        count = grouping.split(queryset)
        message = ngettext(
            "Split %d post from its story.", "Split %d posts from their stories.", count
        )
        self.message_user(request, message % count)

    def delete_model(self, request, obj):
        self.delete_queryset(request, Post.objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            grouping.hand_over(queryset)  # a story they lead is still shown once
            super().delete_queryset(request, queryset)

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
class CategoryAdmin(SafeDateHierarchy, admin.ModelAdmin):
    list_display = ["name", "domain", "post_count", "posts_link"]
    search_fields = ["name", "domain"]
    show_full_result_count = False

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(post_count=count_of(Post.categories.through, "category"))
        )

    @admin.display(description=_("posts"), ordering="post_count")
    def post_count(self, category):
        return category.post_count

    @admin.display(description="")
    def posts_link(self, category):
        url = reverse("admin:djangofeeds_post_changelist")
        return format_html(
            '<a href="{}?category={}">{}</a>', url, category.pk, gettext("Show posts")
        )
