"""Which version of a post is news: an entry older than its stored post never replaces it.

The storage stage (``storage.PostStore``) asks ``replaces`` for each entry of a
batch, with what it read of the stored post (``Stored``); a rewritten post keeps
the first digits of the checksums it had (``earlier_checksums``), so that a
replayed push or a cache's stale copy is known even without dates.
"""

from datetime import datetime
from typing import NamedTuple

# Stands for a pruned post's checksum: no real checksum (64 hex digits) equals it.
PRUNED = "pruned"
# A post remembers this many of its earlier checksums (Post.earlier_checksums), by
# this many hex digits each: enough to know a replayed older version.
EARLIER_KEPT = 8
EARLIER_DIGITS = 16


class Stored(NamedTuple):
    """What a batch needs of a stored post (or, with ``PRUNED``, of a tombstone)."""

    checksum: str
    updated_at: datetime | None = None
    earlier: str = ""


def replaces(stored, entry):
    """Whether ``entry`` is news over its stored post (``stored`` None: there is none).

    Not when unchanged or pruned; nor when older: dated before the post's own
    update, or holding a version the post had before (a replayed push, a cache's
    stale copy). An older entry never rolls a post back, by push or by poll.
    """
    if stored is None:
        return True
    if stored.checksum in (entry.checksum, PRUNED):
        return False
    if stored.updated_at and entry.updated_at and entry.updated_at < stored.updated_at:
        return False
    return entry.checksum[:EARLIER_DIGITS] not in stored.earlier.split()


def earlier_checksums(stored):
    """A rewritten post's ``earlier_checksums``: the one it had, then those before it."""
    if stored is None:
        return ""
    kept = [stored.checksum[:EARLIER_DIGITS], *stored.earlier.split()]
    return " ".join(kept[:EARLIER_KEPT])
