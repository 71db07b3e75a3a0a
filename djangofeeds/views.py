"""Pages: the latest posts of all active feeds (or of one category), one feed, one post."""

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, render

from djangofeeds import query
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
    """The latest posts; ``?category=<id>`` narrows them, ``?q=`` searches them (best
    first), ``?page=<n>`` pages (see query.py)."""
    posts = Post.objects.of_active_feeds().select_related("feed")
    category = None
    category_id = query.object_id(request, "category")
    if category_id is not None:
        category = get_object_or_404(Category, pk=category_id)
        posts = posts.filter(categories=category)
    search_text = clean_query(request.GET.get("q", ""))
    if search_text:
        posts = search_posts(posts, search_text)
    page = Paginator(with_media(posts), POSTS_PER_PAGE).get_page(query.page_number(request))
    kept = {"category": category.pk if category else None, "q": search_text}
    page_query = urlencode({name: value for name, value in kept.items() if value})
    context = {
        "page": page,
        "feeds": Feed.objects.active(),
        "category": category,
        "query": search_text,
        "max_matches": MAX_MATCHES,
        "page_query": f"{page_query}&" if page_query else "",
        "categories_shown": CATEGORIES_SHOWN,
    }
    return render(request, "djangofeeds/post_list.html", context)


def feed_detail(request, pk):
    # A deactivated feed is no longer shown, as on /feeds/: 404, not its old posts.
    feed = get_object_or_404(Feed.objects.active(), pk=pk)
    posts = with_media(feed.posts.all())
    page = Paginator(posts, POSTS_PER_PAGE).get_page(query.page_number(request))
    context = {"feed": feed, "page": page, "categories_shown": CATEGORIES_SHOWN}
    return render(request, "djangofeeds/feed_detail.html", context)


def post_detail(request, pk):
    post = get_object_or_404(
        with_media(Post.objects.of_active_feeds().select_related("feed")), pk=pk
    )
    return render(request, "djangofeeds/post_detail.html", {"post": post})
