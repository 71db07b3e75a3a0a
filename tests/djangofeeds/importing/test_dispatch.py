"""djangofeeds.importing.dispatch: tasks sent by name; "Import now" and the tick share one claim."""

import base64
import json

import pytest
import redis

from djangofeeds.importing.dispatch import enqueue_imports
from djangofeeds.models import Feed
from djangofeeds.push import subscriber
from djangofeeds.tasks import refresh_feeds
from tests.factories import make_feeds
from tests.support.queues import redis_list_key

pytestmark = pytest.mark.django_db(transaction=True)


def test_import_now_uses_the_schedulers_claim(purge_queues):
    """A feed the tick queued is not queued again by "Import now", and the other way round."""
    make_feeds(3)
    first_url, *others = Feed.objects.order_by("pk").values_list("url", flat=True)
    queued, waiting = enqueue_imports([first_url])
    assert [url for url, _ in queued] == [first_url] and waiting == []

    assert refresh_feeds.apply().get()["queued"] == 2
    queued, waiting = enqueue_imports([first_url, *others])
    assert queued == [] and waiting == [first_url, *others]


def test_subscribe_sends_the_websub_task_by_name(private_broker):
    """A WebSub request is sent by the task's name, to the feeds' queue, with its arguments."""
    broker = redis.Redis.from_url(private_broker.url)

    subscriber.subscribe(7, "unsubscribe")

    message = json.loads(broker.lpop(redis_list_key("feeds")))
    assert message["headers"]["task"] == "djangofeeds.tasks.subscribe_feed"
    assert json.loads(base64.b64decode(message["body"]))[:2] == [[7, "unsubscribe"], {}]
