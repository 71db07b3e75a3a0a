"""The blog's RSS feeds: its entries (``/blog/feed/``), which the feeds app can import like
any other, and an entry's comments."""

from django.contrib.syndication.views import Feed
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.html import linebreaks
from django.utils.translation import gettext_lazy as _

from blog.models import Entry


class LatestEntriesFeed(Feed):
    title = _("Blog")
    description = _("The latest entries of the blog.")

    def link(self):
        return reverse("blog:entry_list")

    def items(self):
        return Entry.objects.published()[:20]

    def item_title(self, item):
        return item.title

    def item_description(self, item):
        return linebreaks(item.body, autoescape=True)

    def item_pubdate(self, item):
        return item.pub_date


class EntryCommentsFeed(Feed):
    """An entry's published comments (``/blog/<slug>/comments/feed/``), newest first."""

    def get_object(self, request, slug):
        return get_object_or_404(Entry.objects.published(), slug=slug)

    def title(self, obj):
        return _("Comments on %(title)s") % {"title": obj.title}

    def description(self, obj):
        return _("Comments on %(title)s") % {"title": obj.title}

    def link(self, obj):
        return obj.get_absolute_url()

    def items(self, obj):
        return obj.comments.published().select_related("entry").order_by("-pub_date", "-pk")[:50]

    def item_title(self, item):
        return str(item)  # "<name> on <entry>"

    def item_description(self, item):
        return linebreaks(item.comment, autoescape=True)

    def item_link(self, item):
        return item.get_absolute_url()

    def item_author_name(self, item):
        return item.name

    def item_pubdate(self, item):
        return item.pub_date
