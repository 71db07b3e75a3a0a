"""The RSS 2.0 and Atom 1.0 output feeds, on ``django.contrib.syndication``.

Each item keeps its original link, guid and author, names the feed it came from
(RSS ``<source url>``, Atom ``<source>``) and the other feeds that carry its
story (a ``related`` link to each one's item, Atom's and in RSS ``atom:link``,
and an "Also in:" line under the content), and carries its enclosures and a
podcast's details (iTunes and Podcasting 2.0 elements), so that a podcast
network can republish its shows' episodes.
"""

from urllib.parse import urlsplit

from django.contrib.syndication.views import Feed as SyndicationView
from django.utils.feedgenerator import Atom1Feed, Enclosure, Rss201rev2Feed

from djangofeeds import conf
from djangofeeds.republishing import hubs
from djangofeeds.republishing.scopes import also_in, content_with_also_in

ITUNES = "http://www.itunes.com/dtds/podcast-1.0.dtd"
PODCAST = "https://podcastindex.org/namespace/1.0"
CHAPTERS_TYPE = "application/json+chapters"


def add_podcast_elements(handler, post):
    """A podcast episode's details, as the iTunes and Podcasting 2.0 namespaces write them."""
    if post.duration is not None:
        handler.addQuickElement("itunes:duration", str(post.duration))
    if post.image_url:
        handler.addQuickElement("itunes:image", attrs={"href": post.image_url})
    if post.season is not None:
        handler.addQuickElement("itunes:season", str(post.season))
    if post.episode is not None:
        handler.addQuickElement("itunes:episode", str(post.episode))
    if post.explicit is not None:
        handler.addQuickElement("itunes:explicit", "true" if post.explicit else "false")
    if post.transcript_url:
        kind = post.transcript_type or "text/plain"  # the namespace requires a type
        attrs = {"url": post.transcript_url, "type": kind}
        handler.addQuickElement("podcast:transcript", attrs=attrs)
    if post.chapters_url:
        handler.addQuickElement(
            "podcast:chapters", attrs={"url": post.chapters_url, "type": CHAPTERS_TYPE}
        )


def add_related_links(handler, element, others):
    """The items of a story in other feeds (``scopes.also_in``), as Atom names them."""
    for other in others:
        attrs = {"rel": "related", "href": other["url"], "title": other["name"]}
        handler.addQuickElement(element, attrs=attrs)


def with_podcast_namespaces(attributes):
    return {**attributes, "xmlns:itunes": ITUNES, "xmlns:podcast": PODCAST}


class RepublishedRss(Rss201rev2Feed):
    def rss_attributes(self):
        return with_podcast_namespaces(super().rss_attributes())

    def add_root_elements(self, handler):
        super().add_root_elements(handler)  # with <atom:link rel="self">
        for hub in self.feed["hubs"]:
            handler.addQuickElement("atom:link", attrs={"rel": "hub", "href": hub})
        if self.feed.get("image"):
            handler.addQuickElement("itunes:image", attrs={"href": self.feed["image"]})

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        source = item["post"].feed
        handler.addQuickElement("source", source.public_name, {"url": source.public_url})
        add_related_links(handler, "atom:link", item["also_in"])
        add_podcast_elements(handler, item["post"])


class RepublishedAtom(Atom1Feed):
    def root_attributes(self):
        return with_podcast_namespaces(super().root_attributes())

    def add_root_elements(self, handler):
        super().add_root_elements(handler)  # with <link rel="self">
        for hub in self.feed["hubs"]:
            handler.addQuickElement("link", attrs={"rel": "hub", "href": hub})
        if self.feed.get("image"):
            handler.addQuickElement("logo", self.feed["image"])

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        source = item["post"].feed
        handler.startElement("source", {})
        handler.addQuickElement("id", source.public_url)
        handler.addQuickElement("title", source.public_name)
        handler.addQuickElement("link", attrs={"rel": "self", "href": source.public_url})
        if source.link:
            handler.addQuickElement("link", attrs={"rel": "alternate", "href": source.link})
        handler.endElement("source")
        add_related_links(handler, "link", item["also_in"])
        add_podcast_elements(handler, item["post"])


class RepublishedFeed(SyndicationView):
    """One output feed: a ``scopes.Scope``'s ``posts`` (fetched with their media and
    feeds) in ``fmt`` "rss" or "atom"."""

    def __init__(self, scope, posts, fmt):
        super().__init__()
        self.scope, self.posts, self.fmt = scope, posts, fmt
        self.feed_type = RepublishedAtom if fmt == "atom" else RepublishedRss

    def get_object(self, request, *args, **kwargs):
        self.request = request
        return self.scope

    def title(self, scope):
        return scope.title

    def link(self, scope):
        return scope.page_url()

    def feed_url(self, scope):
        return hubs.topic_url(scope, self.fmt) if hubs.enabled() else scope.url(self.fmt)

    def description(self, scope):
        return (scope.kind == "feed" and scope.subject.description) or scope.title

    def feed_extra_kwargs(self, scope):
        extra = {"hubs": list(conf.DJANGOFEEDS_PUBLISH_HUBS) if hubs.enabled() else []}
        if scope.kind == "feed":
            extra["image"] = scope.subject.image_url
        return extra

    def items(self, scope):
        self.others = {post.pk: also_in(self.request, post) for post in self.posts}
        return self.posts

    def item_title(self, post):
        return post.title

    def item_description(self, post):
        return content_with_also_in(post, self.others[post.pk])

    def item_link(self, post):
        return post.link or post.get_page_url()

    def item_guid(self, post):
        # An Atom id is an IRI: a guid that is not one ("1234") gives way to our page's URL.
        if self.fmt == "atom" and not urlsplit(post.guid).scheme:
            return self.request.build_absolute_uri(post.get_page_url())
        return post.guid

    def item_guid_is_permalink(self, post):
        return post.guid == post.link

    def item_author_name(self, post):
        return post.author or None

    def item_pubdate(self, post):
        return post.published_at

    def item_updateddate(self, post):
        # Atom requires an entry's <updated>: a post without dates has its import's.
        return post.updated_at or post.published_at or post.imported_at

    def item_categories(self, post):
        return [category.name for category in post.category_list]

    def item_enclosures(self, post):
        enclosures = [
            Enclosure(e.url, str(e.length or 0), e.type or "application/octet-stream")
            for e in post.enclosure_list
        ]
        return enclosures[:1] if self.fmt == "rss" else enclosures  # RSS: one per item

    def item_extra_kwargs(self, post):
        return {"post": post, "also_in": self.others[post.pk]}
