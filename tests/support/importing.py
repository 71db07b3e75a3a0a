"""A feed imported by URL with the importer alone: no task, no lock, no fence."""

from djangofeeds.importing.importer import fetch_and_store
from djangofeeds.models import Feed


def import_url(url, **options):
    """``fetch_and_store`` the feed at ``url``, creating its row; the ``ImportResult``."""
    feed, _ = Feed.objects.get_or_create(url=url)
    return fetch_and_store(feed, **options)
