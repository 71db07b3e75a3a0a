import datetime

from reader import Content
from reader import Enclosure
from reader._types import EntryData
from reader._types import FeedData
from reader.types import Author

feed = FeedData(
    url=f'{url_base}invalid.json',
    version='json11',
)

entries = [
    EntryData(
        feed_url=feed.url,
        id='2',
        updated=None,
        enclosures=(
            Enclosure(href='control'),
            Enclosure(href='float size', length=100),
            Enclosure(href='non-number size'),
        ),
    ),
    EntryData(
        feed_url=feed.url,
        id='3.1415',
        title='float id',
        updated=None,
    ),
    EntryData(
        feed_url=feed.url,
        id='author name',
        updated=None,
    ),
    EntryData(
        feed_url=feed.url,
        id='author url',
        updated=None,
    ),
    EntryData(
        feed_url=feed.url,
        id='author name fallback',
        updated=None,
        authors=(Author(email='joe@example.com'),),
    ),
    EntryData(
        feed_url=feed.url,
        id='author empty dict',
        updated=None,
    ),
    EntryData(
        feed_url=feed.url,
        id='author empty list',
        updated=None,
    ),
    EntryData(
        feed_url=feed.url,
        id='second author is good',
        updated=None,
        authors=(Author(name='Jane'),),
    ),
]
