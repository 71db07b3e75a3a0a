"""The blog's RSS feed (``/blog/feed/``), which the feeds app can import like any other."""

from django.contrib.syndication.views import Feed
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
