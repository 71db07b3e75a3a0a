"""Pages: the latest posts of all active feeds, and one feed with its posts."""

from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render

from djangofeeds.models import Feed, Post

POSTS_PER_PAGE = 25


def post_list(request):
    posts = Post.objects.of_active_feeds().select_related("feed")
    page = Paginator(posts, POSTS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request, "djangofeeds/post_list.html", {"page": page, "feeds": Feed.objects.active()}
    )


def feed_detail(request, pk):
    # A deactivated feed is no longer shown, as on /feeds/: 404, not its old posts.
    feed = get_object_or_404(Feed.objects.active(), pk=pk)
    page = Paginator(feed.posts.all(), POSTS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "djangofeeds/feed_detail.html", {"feed": feed, "page": page})
