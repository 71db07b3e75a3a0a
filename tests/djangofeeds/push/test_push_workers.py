"""WebSub end to end: a real worker subscribes at the hub stand-in and stores what it pushes."""

import time

import httpx
import pytest

from djangofeeds.models import ImportRun, Subscription
from djangofeeds.tasks import import_feed
from localservers.feed_server import numbered_items, rss
from localservers.waiting import wait_until
from tests.support.workers import feeds_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_pushed_post_is_on_the_feeds_page_within_a_second(
    hub, push_on, feed_server, memcached_cache, worker_factory
):
    """Import finds the hub, the worker subscribes, the hub verifies and pushes: post on /feeds/."""
    feeds_worker(worker_factory, memcached_cache, DJANGOFEEDS_PUBLIC_URL=push_on.url)
    url = feed_server.url("/feed.xml")
    links = f'<{hub.url}>; rel="hub", <{url}>; rel="self"'
    feed_server.serve("/feed.xml", rss(numbered_items(2)), headers={"Link": links})

    import_feed.delay(url).get(timeout=30)
    assert hub.wait_verified(timeout=30).confirmed
    wait_until(
        lambda: Subscription.objects.filter(state="active").exists(), 10, "active subscription"
    )

    pushed = rss([{"guid": "pushed-e2e", "title": "Fresh from the hub", "link": url + "#p"}])
    started = time.monotonic()
    assert hub.push(url, pushed, content_type="application/rss+xml") == [202]
    wait_until(
        lambda: "Fresh from the hub" in httpx.get(push_on.url + "/feeds/").text,
        15,
        "the pushed post on /feeds/",
        interval=0.02,
    )
    assert time.monotonic() - started < 5  # the bench measures the median (< 1 s)
    assert feed_server.hits("/feed.xml") == 1  # stored without a fetch
    assert ImportRun.objects.filter(pushed=True, created=1).count() == 1
