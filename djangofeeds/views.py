"""Pages: the latest posts of all active feeds (or of one category), one feed, one post; and
the WebSub callback, where a hub verifies our intent (GET) and pushes content (POST)."""

import base64
import logging
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from djangofeeds import conf
from djangofeeds.models import Category, Feed, Post, Subscription
from djangofeeds.push import subscriber
from djangofeeds.push.protocol import check_signature
from djangofeeds.republishing.scopes import FORMATS, alternates
from djangofeeds.search import MAX_MATCHES, clean_query, search_posts
from djangofeeds_blog_shared import query

logger = logging.getLogger(__name__)
POSTS_PER_PAGE = 25
# Chips under a post: a post with 50 categories shows the first few.
CATEGORIES_SHOWN = 8
# The newest stories /feeds/ pages through (500 pages): its pager counts them, and counting
# every story of 1,000,000 posts took 0.7 s (a feed's own page goes back further).
LISTED_POSTS = 10_000


def post_list(request):
    """The latest posts; ``?category=<id>`` narrows them, ``?q=`` searches them (best
    first), ``?page=<n>`` pages (see query.py)."""
    posts = Post.objects.stories().select_related("feed")  # a story once, "also in" the rest
    category = None
    category_id = query.object_id(request, "category")
    if category_id is not None:
        category = get_object_or_404(Category, pk=category_id)
        posts = posts.filter(categories=category)
    search_text = clean_query(request.GET.get("q", ""))
    # A search ranks the MAX_MATCHES newest matches; the list pages the newest stories.
    posts = search_posts(posts, search_text) if search_text else posts[:LISTED_POSTS]
    posts = posts.with_media().with_also_in()
    page = Paginator(posts, POSTS_PER_PAGE).get_page(query.page_number(request))
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
        **feed_links(category=category),
    }
    return render(request, "djangofeeds/post_list.html", context)


def feed_detail(request, pk):
    # A deactivated feed is no longer shown, as on /feeds/: 404, not its old posts.
    feed = get_object_or_404(Feed.objects.active(), pk=pk)
    posts = feed.posts.filter(is_blocked=False).with_media()  # a rule's blocked posts: admin only
    page = Paginator(posts, POSTS_PER_PAGE).get_page(query.page_number(request))
    context = {"feed": feed, "page": page, "categories_shown": CATEGORIES_SHOWN}
    context |= feed_links(feed=feed)
    return render(request, "djangofeeds/feed_detail.html", context)


def post_detail(request, pk):
    post = get_object_or_404(
        Post.objects.of_active_feeds().select_related("feed").with_media(), pk=pk
    )
    context = {"post": post, **feed_links(feed=post.feed)}
    return render(request, "djangofeeds/post_detail.html", context)


def feed_links(feed=None, category=None):
    """The page's output feeds: all in ``<head>`` (``alternates``), its own as links
    (``subscribe``: the feed's or the category's, else every active feed's)."""
    found = alternates(feed=feed, category=category)
    return {"alternates": found, "subscribe": found[-len(FORMATS) :]}


READ_CHUNK = 64 * 1024


class LengthRequired(Exception):
    """A chunked body that the WSGI server does not end for us."""


class TooLarge(Exception):
    """The pushed body is over ``DJANGOFEEDS_MAX_BYTES``."""


# Hubs hold no CSRF token: the callback's secret path and the body's
# signature (hub.secret) are the authentication.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def callback(request, token):
    """Answer the hub: the challenge for a subscription we asked for; accept signed content."""
    if request.method == "GET":
        status, body = subscriber.verify(token, request.GET)
        return HttpResponse(body, status=status, content_type="text/plain; charset=utf-8")
    subscription = Subscription.objects.filter(token=token, state=Subscription.State.ACTIVE).first()
    if subscription is None:
        return HttpResponse(status=404)
    try:
        body = read_capped(request, conf.DJANGOFEEDS_MAX_BYTES)
    except TooLarge:
        logger.warning(
            "push to %s refused: over %d bytes", subscription.topic, conf.DJANGOFEEDS_MAX_BYTES
        )
        return HttpResponse(status=413)
    except LengthRequired:  # the hub retries, and may send a Content-Length then
        logger.warning(
            "push to %s refused: a chunked body this server cannot read (411)", subscription.topic
        )
        return HttpResponse(status=411)
    ok, why = check_signature(subscription.secret, body, request.headers.get("X-Hub-Signature"))
    if not ok:
        # W3C WebSub 8: ignored, yet acknowledged, so a forger learns nothing.
        logger.warning("push to %s from %s ignored: %s", subscription.topic, client(request), why)
        return HttpResponse(status=202)
    from djangofeeds.tasks import store_push  # Celery only when a push arrives

    try:
        store_push.delay(
            subscription.pk,
            base64.b64encode(body).decode("ascii"),
            request.headers.get("Content-Type", ""),
        )
    except Exception as exc:  # the broker: the hub retries a push that was not acknowledged
        logger.error("push to %s not queued (%s: %s)", subscription.topic, type(exc).__name__, exc)
        return HttpResponse(status=503)
    return HttpResponse(status=202)


def read_capped(request, cap):
    """The request body, refused past ``cap`` bytes (announced or read), never more read.

    A chunked body has no Content-Length, and Django reads it as empty: it is read
    from the server's own input instead, which a server that ends it for us
    (``wsgi.input_terminated``: gunicorn, uWSGI) lets us read to its end. Where the
    server does not, ``LengthRequired``: an empty body would read as a forgery.
    """
    length = request.META.get("CONTENT_LENGTH", "")
    if length.isascii() and length.isdigit() and int(length) > cap:
        raise TooLarge
    stream = request  # request.read(), not request.body: bounded here by the feeds' own cap
    if not length and "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
        if not request.META.get("wsgi.input_terminated"):
            raise LengthRequired
        stream = request.META["wsgi.input"]
    body = bytearray()
    while chunk := stream.read(min(READ_CHUNK, cap + 1 - len(body))):
        body += chunk
        if len(body) > cap:
            raise TooLarge
    return bytes(body)


def client(request):
    return request.META.get("REMOTE_ADDR", "?")
