"""djangofeeds' signals: hooks for a host, each sent by the code named in its comment.

Every one is sent after the transaction that made the change commits
(``transaction.on_commit``, robust: a failing receiver is logged and changes
nothing), sender the ``Feed`` class. This module imports no model, so a host
may import it anywhere.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, TypedDict

from django.db import transaction
from django.dispatch import Signal

if TYPE_CHECKING:
    from django.db.models import Model, QuerySet

    from djangofeeds.models import Feed, ImportRun, Post

# Sent by the importer (djangofeeds.importing.importer) when an import stored new or
# changed posts, with ``feed``, ``run`` (its ImportRun) and two Post querysets:
# ``created`` (posts this import added) and ``updated`` (posts it rewrote
# because their content changed). Not sent when nothing was stored (304, the
# same bytes, every post unchanged).
posts_stored = Signal()


class PostsStoredArguments(TypedDict):
    """What ``posts_stored`` sends besides ``signal`` and ``sender``."""

    feed: Feed
    run: ImportRun
    created: QuerySet[Post]
    updated: QuerySet[Post]


# Sent by djangofeeds.importing.records (record_failure) when a healthy feed starts
# failing: its error count goes from 0 to 1. ``feed``, ``run`` (the failed
# ImportRun), ``error`` (the run's error text).
feed_failing = Signal()


class FeedFailingArguments(TypedDict):
    """What ``feed_failing`` sends besides ``signal`` and ``sender``."""

    feed: Feed
    run: ImportRun
    error: str


# Sent when an active feed is deactivated: by an import (djangofeeds.importing.records; 410
# Gone, moved to a URL that is already another feed) and by
# ``records.deactivate()`` (the admin's "Deactivate" action). ``feed``,
# ``run`` (the ImportRun, None when a person did it), ``reason`` (text).
feed_deactivated = Signal()


class FeedDeactivatedArguments(TypedDict):
    """What ``feed_deactivated`` sends besides ``signal`` and ``sender``."""

    feed: Feed
    run: ImportRun | None
    reason: str


# Sent by djangofeeds.health.states (announce) when an import changes a feed's health
# (``Feed.health``: ok, failing, dead, moved, gone, silent). ``feed``, ``old`` and ``new``
# (the states' values), ``reason`` (text).
feed_health_changed = Signal()


class FeedHealthChangedArguments(TypedDict):
    """What ``feed_health_changed`` sends besides ``signal`` and ``sender``."""

    feed: Feed
    old: str
    new: str
    reason: str


def send_on_commit(signal: Signal, sender: type[Model], **kwargs: object) -> None:
    """Send ``signal`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(partial(signal.send, sender=sender, **kwargs), robust=True)
