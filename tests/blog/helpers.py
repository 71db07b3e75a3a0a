"""Helpers of the blog's tests: the stand-in's key, worker settings, polling."""

import time

KEY = "test-key"
# As in tests/blog/worker_settings.py, for tasks run in this process.
FAST_RETRIES = {
    "BLOG_SPAM_RETRY_BACKOFF": 1,
    "BLOG_SPAM_RETRY_BACKOFF_MAX": 2,
    "BLOG_SPAM_MAX_RETRIES": 2,
    "BLOG_AKISMET_TIMEOUT": 1,
}


def worker_env(stand_in, key=KEY, **extra):
    """Environment of a worker that checks comments against the stand-in."""
    return {
        "DJANGO_SETTINGS_MODULE": "tests.blog.worker_settings",
        "AKISMET_API_KEY": key,
        "AKISMET_API_URL": stand_in.url,
        **extra,
    }


def wait_until(condition, timeout=30, interval=0.1, message="condition"):
    """Poll until condition() is true; fail after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{message} not reached after {timeout}s")
        time.sleep(interval)
    return result
