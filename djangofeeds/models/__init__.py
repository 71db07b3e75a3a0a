"""Feeds, their posts, and a record of every import attempt.

One module per concern; every name is imported from ``djangofeeds.models``, as
the migrations name them (``djangofeeds.models.validate_fetchable``,
``new_callback_token``, ``new_secret``).
"""

from djangofeeds.fetching.feed_urls import (
    URL_MAX_LENGTH,
    InvalidFeedURL,
    feed_url_problem,
    validate_fetchable,
)
from djangofeeds.models.categories import Category
from djangofeeds.models.feeds import Feed, FeedManager, FeedQuerySet, Health, Outcome
from djangofeeds.models.health import HealthChange
from djangofeeds.models.posts import Enclosure, Post, PostQuerySet, PrunedPost
from djangofeeds.models.rules import Rule
from djangofeeds.models.runs import ImportRun, RefreshRun
from djangofeeds.models.subscriptions import Subscription, new_callback_token, new_secret

__all__ = [
    "URL_MAX_LENGTH",
    "Category",
    "Enclosure",
    "Feed",
    "FeedManager",
    "FeedQuerySet",
    "Health",
    "HealthChange",
    "ImportRun",
    "InvalidFeedURL",
    "Outcome",
    "Post",
    "PostQuerySet",
    "PrunedPost",
    "RefreshRun",
    "Rule",
    "Subscription",
    "feed_url_problem",
    "new_callback_token",
    "new_secret",
    "validate_fetchable",
]
