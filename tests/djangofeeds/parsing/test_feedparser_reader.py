"""djangofeeds.parsing.feedparser_reader: any RSS or Atom document, read by feedparser."""

import pytest

from djangofeeds.parsing.entries import NotAFeed
from djangofeeds.parsing.feedparser_reader import parse
from tests.support.fixtures import fixture


def test_parse_turns_only_parser_bugs_into_not_a_feed(monkeypatch):
    """A parser bug is the document's problem; a Celery soft time limit (an Exception) is not."""

    class Stop(Exception):
        """Stands in for celery.exceptions.SoftTimeLimitExceeded."""

    def feedparser_raising(error):
        def feedparser_parse(*args, **kwargs):
            raise error

        return feedparser_parse

    body = fixture("atom10.xml")  # Atom: feedparser reads it
    monkeypatch.setattr(
        "djangofeeds.parsing.feedparser_reader.feedparser.parse", feedparser_raising(IndexError())
    )
    with pytest.raises(NotAFeed, match="IndexError"):
        parse(body)

    monkeypatch.setattr(
        "djangofeeds.parsing.feedparser_reader.feedparser.parse", feedparser_raising(Stop())
    )
    with pytest.raises(Stop):
        parse(body)
