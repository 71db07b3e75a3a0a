"""Pages: the latest posts of all active feeds (or of one category), one feed, one post."""

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, render

from djangofeeds.models import Category, Feed, Post
from djangofeeds.search import MAX_MATCHES, clean_query, search_posts

POSTS_PER_PAGE = 25
# Chips under a post: a post with 50 categories shows the first few.
CATEGORIES_SHOWN = 8


def with_media(posts):
    """Posts with their enclosures and categories, two queries per page rather than per post."""
    return posts.prefetch_related(
        "enclosures", Prefetch("categories", queryset=Category.objects.order_by("name"))
    )


def post_list(request):
    posts = Post.objects.of_active_feeds().select_related("feed")
    category = None
    if request.GET.get("category", "").isdigit():
        category = get_object_or_404(Category, pk=request.GET["category"])
        posts = posts.filter(categories=category)
    query = clean_query(request.GET.get("q", ""))
    if query:
        posts = search_posts(posts, query)
    page = Paginator(with_media(posts), POSTS_PER_PAGE).get_page(request.GET.get("page"))
    kept = {"category": category.pk if category else None, "q": query}
    page_query = urlencode({name: value for name, value in kept.items() if value})
    context = {
        "page": page,
        "feeds": Feed.objects.active(),
        "category": category,
        "query": query,
        "max_matches": MAX_MATCHES,
        "page_query": f"{page_query}&" if page_query else "",
        "categories_shown": CATEGORIES_SHOWN,
    }
    return render(request, "djangofeeds/post_list.html", context)


def feed_detail(request, pk):
    # A deactivated feed is no longer shown, as on /feeds/: 404, not its old posts.
    feed = get_object_or_404(Feed.objects.active(), pk=pk)
    page = Paginator(with_media(feed.posts.all()), POSTS_PER_PAGE).get_page(request.GET.get("page"))
    context = {"feed": feed, "page": page, "categories_shown": CATEGORIES_SHOWN}
    return render(request, "djangofeeds/feed_detail.html", context)


def post_detail(request, pk):
    post = get_object_or_404(
        with_media(Post.objects.of_active_feeds().select_related("feed")), pk=pk
    )
    return render(request, "djangofeeds/post_detail.html", {"post": post})
