"""djangofeeds.fencing: a feed write that only the newest lock holder may make."""

import pytest

from djangofeeds.fencing import StaleFence, write_fenced
from djangofeeds.models import Feed

pytestmark = pytest.mark.django_db

URL = "http://a.example/feed.xml"


def test_the_newest_fence_writes_the_row_and_the_instance():
    """Under the newest fencing number the row changes, and so does the caller's instance."""
    feed = Feed.objects.next_fence(URL)

    write_fenced(feed, feed.fence, title="Fenced")

    assert feed.title == "Fenced" and Feed.objects.get(url=URL).title == "Fenced"


def test_a_stale_fence_writes_nothing():
    """Once a newer holder took the feed, an older fence's write is refused."""
    stale = Feed.objects.next_fence(URL)
    Feed.objects.next_fence(URL)

    with pytest.raises(StaleFence):
        write_fenced(stale, stale.fence, title="Stale")

    assert Feed.objects.get(url=URL).title == ""


def test_without_a_fence_the_write_is_not_fenced():
    """A test or a benchmark writes without a lock: nothing is compared."""
    feed = Feed.objects.create(url=URL)
    Feed.objects.next_fence(URL)

    write_fenced(feed, None, title="Unfenced")

    assert Feed.objects.get(url=URL).title == "Unfenced"
