"""One process of the lock contention test: take the lock ROUNDS times, print the holds.

Run as ``python -m tests.support.lock_contender KEY ROUNDS START_NS`` with
``MEMCACHED_LOCATION`` set; prints a JSON list of ``[enter_ns, exit_ns]`` on the
system-wide monotonic clock, so intervals of different processes compare.
"""

import json
import os
import sys
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

import django

django.setup()

from djangofeeds.locking.locks import CacheLock  # noqa: E402


def main(key, rounds, start_ns):
    while time.monotonic_ns() < start_ns:  # all processes start together
        time.sleep(0.001)
    intervals = []
    while len(intervals) < rounds:
        lock = CacheLock(key, expire=30)
        if not lock.acquire():
            continue
        entered = time.monotonic_ns()
        time.sleep(0.0002)  # hold it long enough for an overlap to show
        exited = time.monotonic_ns()
        assert lock.release(), "the owner could not release its own lock"
        intervals.append([entered, exited])
    print(json.dumps(intervals))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
