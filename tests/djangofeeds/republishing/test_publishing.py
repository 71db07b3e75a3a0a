"""WebSub publishing (SPEC §4 "Republishing"): the output feeds name their hubs and topic,
and an import that stores posts tells each hub, after its commit, which output feeds
changed; a hub stand-in on loopback receives the pings, a real worker sends them."""

import json

import feedparser
import pytest
from django.core import checks
from django.urls import reverse

from djangofeeds.models import Category, Feed
from djangofeeds.tasks import import_feed, publish_to_hubs
from localservers.feed_server import numbered_items, rss, with_media
from localservers.waiting import wait_until
from tests.support.importing import import_url
from tests.support.workers import feeds_worker

PLANET = "https://planet.example.org"


@pytest.fixture
def publishing(settings, hub):
    """Publishing on: one hub (the stand-in), the site public at PLANET."""
    settings.DJANGOFEEDS_PUBLISH_HUBS = [hub.url]
    settings.DJANGOFEEDS_PUBLIC_URL = PLANET
    return hub


def topics_of(feed, categories=()):
    """The output feeds an import of ``feed`` changes, as the hubs are told of them."""
    paths = [reverse(f"djangofeeds:posts_{fmt}") for fmt in ("rss", "atom", "json")]
    for name, pk in [("feed", feed.pk), *(("category", c.pk) for c in categories)]:
        paths += [
            reverse(f"djangofeeds:{name}_{fmt}", kwargs={"pk": pk})
            for fmt in ("rss", "atom", "json")
        ]
    return [PLANET + path for path in paths]


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["rss", "atom"])
def test_the_output_feeds_name_their_hub_and_topic(client, publishing, fmt):
    response = client.get(reverse(f"djangofeeds:posts_{fmt}"))

    topic = f"{PLANET}{reverse(f'djangofeeds:posts_{fmt}')}"
    links = {(link.rel, link.href) for link in feedparser.parse(response.content).feed.links}
    assert {("hub", publishing.url), ("self", topic)} <= links
    assert response["Link"] == f'<{publishing.url}>; rel="hub", <{topic}>; rel="self"'


@pytest.mark.django_db
def test_the_json_feed_names_its_hubs_and_without_a_public_url_no_feed_does(
    client, publishing, settings
):
    document = json.loads(client.get(reverse("djangofeeds:posts_json")).content)
    assert document["hubs"] == [{"type": "WebSub", "url": publishing.url}]
    assert document["feed_url"] == f"{PLANET}/feeds/feed.json"
    assert "djangofeeds.W003" not in {message.id for message in checks.run_checks()}

    settings.DJANGOFEEDS_PUBLIC_URL = None
    response = client.get(reverse("djangofeeds:posts_rss"))
    assert b'rel="hub"' not in response.content and "Link" not in response
    assert "hubs" not in json.loads(client.get(reverse("djangofeeds:posts_json")).content)
    assert "djangofeeds.W003" in {message.id for message in checks.run_checks()}


@pytest.mark.django_db(transaction=True)
def test_an_import_that_stores_posts_pings_the_hub_after_its_commit_with_what_it_changed(
    feed_server, publishing, eager
):
    """The combined feeds, the feed's own and its posts' categories', in every format; an
    import that stores nothing (the same document) pings nothing."""
    url = feed_server.serve("/p.xml", rss(with_media(numbered_items(2), categories=1)))

    import_url(url)

    feed = Feed.objects.get(url=url)
    categories = Category.objects.filter(posts__feed=feed).distinct().order_by("pk")
    assert publishing.publishes() == [topics_of(feed, categories)]
    import_url(url)  # unchanged
    assert len(publishing.publishes()) == 1


@pytest.mark.django_db
def test_a_hub_that_fails_is_asked_again_alone(publishing, settings, eager):
    """Two hubs, one answering 503: the good one is told once, the other is asked again,
    up to the task's retries (eagerly here, without the backoff's waits)."""
    down = publishing.url_for("/down")
    publishing.state.failing.add("/down")
    settings.DJANGOFEEDS_PUBLISH_HUBS = [down, publishing.url]
    urls = [f"{PLANET}/feeds/rss/", f"{PLANET}/feeds/atom/"]

    result = publish_to_hubs.apply(args=(urls,))

    assert result.failed()
    assert publishing.publishes("/hub") == [urls]
    assert publishing.publishes("/down") == [urls] * (1 + publish_to_hubs.max_retries)


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_pings_the_hub_after_an_import(
    feed_server, hub, memcached_cache, worker_factory
):
    feeds_worker(
        worker_factory,
        memcached_cache,
        DJANGOFEEDS_PUBLISH_HUBS=hub.url,
        DJANGOFEEDS_PUBLIC_URL=PLANET,
    )
    url = feed_server.serve("/w.xml", rss(numbered_items(2)))

    import_feed.delay(url)

    wait_until(lambda: hub.publishes(), 60, "the worker never pinged the hub")
    feed = Feed.objects.get(url=url)
    assert hub.publishes() == [topics_of(feed)]
