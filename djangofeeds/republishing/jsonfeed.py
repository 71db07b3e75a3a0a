"""The JSON Feed 1.1 output feed (https://www.jsonfeed.org/version/1.1/).

Each item names the feed it came from in a ``_source`` extension object (with
``also_in``, the other feeds that carry its story), and a podcast episode's details
(season, episode, explicit, transcript, chapters) in ``_podcast``; its duration is
the attachments' ``duration_in_seconds``.
"""

from django.http import JsonResponse

from djangofeeds import conf
from djangofeeds.republishing import hubs
from djangofeeds.republishing.scopes import also_in, content_with_also_in

VERSION = "https://jsonfeed.org/version/1.1"
CONTENT_TYPE = "application/feed+json; charset=utf-8"


def json_feed(request, scope, posts):
    """The JSON Feed document of ``scope``'s ``posts`` (fetched with their media and feeds)."""
    document = {
        "version": VERSION,
        "title": scope.title,
        "home_page_url": request.build_absolute_uri(scope.page_url()),
        "feed_url": request.build_absolute_uri(scope.url("json")),
        "items": [json_item(request, post) for post in posts],
    }
    if hubs.enabled():
        document["feed_url"] = hubs.topic_url(scope, "json")
        document["hubs"] = [{"type": "WebSub", "url": hub} for hub in conf.DJANGOFEEDS_PUBLISH_HUBS]
    if scope.kind == "feed":
        feed = scope.subject
        if feed.description:
            document["description"] = feed.description
        if feed.image_url:
            document["icon"] = feed.image_url
    return JsonResponse(document, content_type=CONTENT_TYPE, json_dumps_params={"indent": 1})


def json_item(request, post):
    others = also_in(request, post)
    item = {
        "id": post.guid,
        "url": post.link or request.build_absolute_uri(post.get_page_url()),
        "title": post.title,
        "content_html": content_with_also_in(post, others),
    }
    if post.published_at:
        item["date_published"] = post.published_at.isoformat()
    if post.updated_at:
        item["date_modified"] = post.updated_at.isoformat()
    if post.author:
        item["authors"] = [{"name": post.author}]
    if post.image_url:
        item["image"] = post.image_url
    tags = [category.name for category in post.category_list]
    if tags:
        item["tags"] = tags
    attachments = [attachment(enclosure, post.duration) for enclosure in post.enclosure_list]
    if attachments:
        item["attachments"] = attachments
    source = post.feed
    item["_source"] = {"title": source.public_name, "feed_url": source.public_url}
    if source.link:
        item["_source"]["home_page_url"] = source.link
    if others:
        item["_source"]["also_in"] = others
    podcast = podcast_details(post)
    if podcast:
        item["_podcast"] = podcast
    return item


def attachment(enclosure, duration):
    found = {"url": enclosure.url, "mime_type": enclosure.type or "application/octet-stream"}
    if enclosure.length:
        found["size_in_bytes"] = enclosure.length
    if duration is not None:
        found["duration_in_seconds"] = duration
    return found


def podcast_details(post):
    details = {
        "season": post.season,
        "episode": post.episode,
        "explicit": post.explicit,
        "transcript": post.transcript_url
        and {"url": post.transcript_url, "type": post.transcript_type or "text/plain"},
        "chapters": post.chapters_url,
    }
    return {name: value for name, value in details.items() if value not in (None, "")}
