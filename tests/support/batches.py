"""Feeds claimed as a tick claims them, and the outcomes of their runs: the batch tests'."""

from djangofeeds.importing.claims import claim_feeds
from djangofeeds.models import Feed, ImportRun


def claimed(urls):
    """Claim the feeds of ``urls`` as a tick would; the claim each message carries."""
    Feed.objects.bulk_create([Feed(url=url) for url in urls], ignore_conflicts=True)
    claim, _ = claim_feeds(Feed.objects.filter(url__in=urls))
    return claim


def outcomes(urls):
    """Each URL's runs' outcomes, in order."""
    runs = ImportRun.objects.order_by("pk").values_list("feed__url", "outcome")
    return [[outcome for url_, outcome in runs if url_ == url] for url in urls]
