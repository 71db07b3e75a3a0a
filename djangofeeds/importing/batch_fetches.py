"""A batch's fetches, run together: threads wait on the feeds' servers, the process stores.

A batch (``batch.run_batch``) starts each feed's fetch here as soon as the feed
is admitted (its lock, fence and host slot taken), then stores the feeds one
after the other as their answers come back. A slow or dead server then holds
the batch for one fetch deadline, not one per such feed, and the fast feeds'
stores fill the wait. The threads only fetch: they never touch the database
(its connections are per thread) and share the process's one HTTP transport.
The answers wait for their store: a batch holds at most its size times
``DJANGOFEEDS_MAX_BYTES`` of bodies.
"""

import os
from concurrent.futures import ThreadPoolExecutor

from django.utils import timezone

from djangofeeds.fetching.transport import FETCHES_AT_ONCE
from djangofeeds.importing.importer import fetch_answer

_pool = None
_pool_pid = None


def fetch_pool():
    """The process's fetch threads, made on first use (a forked pool process makes its own)."""
    global _pool, _pool_pid
    if _pool_pid != os.getpid():
        _pool = ThreadPoolExecutor(FETCHES_AT_ONCE, thread_name_prefix="djangofeeds fetch")
        _pool_pid = os.getpid()
    return _pool


class Prefetch:
    """``feed``'s fetch, started now in a fetch thread; ``answer()`` waits for its end.

    ``future`` is the thread's ``Future`` of a ``FetchAnswer`` (for
    ``concurrent.futures.as_completed``); ``started_at`` is when its import's
    run began.
    """

    def __init__(self, feed):
        self.started_at = timezone.now()
        self.future = fetch_pool().submit(
            fetch_answer, feed.url, etag=feed.etag, last_modified=feed.last_modified
        )

    def answer(self):
        """The ``FetchAnswer``; an unexpected error in the thread is raised here."""
        return self.future.result()
