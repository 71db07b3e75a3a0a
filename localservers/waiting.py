"""Polling for what real processes do in their own time."""

import time


def wait_until(condition, timeout=30, message="condition", interval=0.1):
    """Poll until ``condition()`` is true and return its value; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{message} not reached after {timeout}s")
        time.sleep(interval)
    return result
