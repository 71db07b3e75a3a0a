"""The output feeds' views (with ETag, Last-Modified and 304) and the public OPML blogroll."""

import hashlib
from types import SimpleNamespace

from django.http import HttpResponse
from django.utils.cache import get_conditional_response
from django.utils.http import http_date
from django.utils.translation import gettext as _

from djangofeeds import conf
from djangofeeds.discovery.opml import build_opml
from djangofeeds.models import Feed
from djangofeeds.republishing import hubs
from djangofeeds.republishing.jsonfeed import json_feed
from djangofeeds.republishing.scopes import Scope
from djangofeeds.republishing.syndication import RepublishedFeed


def output_view(kind, fmt):
    """The view of ``kind``'s ("posts", "feed", "category") output feed in ``fmt``."""

    def view(request, pk=None):
        scope = Scope.of(**({f"{kind}_pk": pk} if kind != "posts" else {}))
        etag, modified = scope.validators(fmt)
        last_modified = int(modified.timestamp()) if modified else None
        response = get_conditional_response(request, etag=etag, last_modified=last_modified)
        if response is None:  # changed, or asked for the first time
            posts = scope.shown_posts()
            if fmt == "json":
                response = json_feed(request, scope, posts)
            else:
                response = RepublishedFeed(scope, posts, fmt)(request)
        response.headers["ETag"] = etag
        if hubs.enabled():  # WebSub discovery, which subscribers read first (WebSub 4)
            links = [f'<{hub}>; rel="hub"' for hub in conf.DJANGOFEEDS_PUBLISH_HUBS]
            response.headers["Link"] = ", ".join(
                [*links, f'<{hubs.topic_url(scope, fmt)}>; rel="self"']
            )
        if last_modified is not None:
            response.headers["Last-Modified"] = http_date(last_modified)
        else:  # Django's, from the posts' own dates, is not when they last changed here
            response.headers.pop("Last-Modified", None)
        return response

    view.__name__ = f"{kind}_{fmt}"
    return view


def blogroll(request):
    """The public OPML of the active feeds: their public URLs (no credentials, no tokens)."""
    feeds = [
        SimpleNamespace(url=feed.public_url, title=feed.title, link=feed.link)
        for feed in Feed.objects.active().order_by("title", "url").only("url", "title", "link")
    ]
    rows = "\x1e".join(f"{feed.url}\x1f{feed.title}\x1f{feed.link}" for feed in feeds)
    etag = f'"{hashlib.sha256(rows.encode()).hexdigest()[:40]}"'
    response = get_conditional_response(request, etag=etag)
    if response is None:
        body = build_opml(feeds, title=_("Blogroll"))
        response = HttpResponse(body, content_type="text/x-opml; charset=utf-8")
    response.headers["ETag"] = etag
    return response
