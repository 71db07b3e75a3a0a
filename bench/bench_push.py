"""Push latency: a WebSub hub's content POST until the post is visible on ``/feeds/``.

gunicorn (2 sync workers) on the bench settings with ``DJANGOFEEDS_PUBLIC_URL``
pointing at it, one Celery worker on the feeds queue, localservers' hub stand-in,
Redis broker, memcached locks, PostgreSQL. The feed is imported once (the
worker finds the hub and subscribes; the hub verifies on gunicorn), then the
hub pushes one new post at a time and the clock runs until ``/feeds/`` shows it.
"""

import os
import time

import httpx

from bench.bench_comments import start_gunicorn
from bench.harness import bench_environment, median, percentile, start_workers, stop_workers
from bench.report import Report
from localservers.feed_server import FeedServer, numbered_items, rss
from localservers.services import free_port
from localservers.waiting import wait_until
from localservers.websub_hub import WebSubHub

PUSHES = 50
GOAL_S = 1.0


def push_one(hub, base_url, topic, number):
    """Push post ``number``; seconds until /feeds/ shows it."""
    title = f"Pushed post number {number:04d}"
    body = rss([{"guid": f"pushed-{number}", "title": title, "link": f"{topic}#{number}"}])
    started = time.perf_counter()
    statuses = hub.push(topic, body, content_type="application/rss+xml")
    if statuses != [202]:
        raise AssertionError(f"the callback answered {statuses}")
    with httpx.Client(base_url=base_url, timeout=10) as client:
        while title not in client.get("/feeds/").text:
            if time.perf_counter() - started > 30:
                raise AssertionError(f"{title} not on /feeds/ after 30 s")
            time.sleep(0.005)
    return time.perf_counter() - started


def main():
    report = Report("push", "Push latency (WebSub)")
    hub, feeds = WebSubHub().start(), FeedServer().start()
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    os.environ["DJANGOFEEDS_PUBLIC_URL"] = base_url
    try:
        with bench_environment(memcached=True, redis=True):
            from djangofeeds.models import Subscription
            from djangofeeds.tasks import import_feed

            topic = feeds.url("/feed.xml")
            links = f'<{hub.url}>; rel="hub", <{topic}>; rel="self"'
            feeds.serve("/feed.xml", rss(numbered_items(5)), headers={"Link": links})
            web = start_gunicorn(port)
            workers = []
            try:
                workers = start_workers(1, queues=["feeds"], concurrency=2)
                import_feed.delay(topic).get(timeout=60)
                if not hub.wait_verified(timeout=60).confirmed:
                    raise AssertionError("the hub's verification of intent failed")
                wait_until(
                    lambda: Subscription.objects.filter(state="active").exists(), 30, "active"
                )
                push_one(hub, base_url, topic, 0)  # warm-up: not timed
                times = [push_one(hub, base_url, topic, n) for n in range(1, PUSHES + 1)]
            finally:
                stop_workers(workers)
                web.process.terminate()
                web.process.wait(timeout=30)
            fetches = feeds.hits("/feed.xml")
    finally:
        hub.stop()
        feeds.stop()

    p50, p99 = median(times), percentile(times, 99)
    report.raw |= {"pushes": PUSHES, "latency_s": times, "feed_fetches": fetches}
    report.row(
        f"push latency: {PUSHES} pushes, hub POST to post on /feeds/, median",
        f"{p50 * 1000:.0f} ms",
        f"{GOAL_S * 1000:.0f} ms (the goal)",
        f"{p50 / GOAL_S:.2f}x",
        "< 1 s",
        p50 < GOAL_S,
    )
    report.row("push latency: p99", f"{p99 * 1000:.0f} ms", "-", "-")
    report.note(
        f"{PUSHES} pushes one after another through gunicorn, Redis, one feeds worker "
        f"(2 processes) and PostgreSQL; the feed was fetched {fetches} time(s) in all "
        "(the first import only: pushes are stored without a fetch)."
    )
    report.save()


if __name__ == "__main__":
    main()
