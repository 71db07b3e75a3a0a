"""Locking: one worker per feed (a lease lock in the cache) and few fetches per host at once."""
