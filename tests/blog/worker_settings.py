"""Settings for the blog's worker subprocesses: the test settings with retries in seconds."""

from tests.settings import *  # noqa: F403

BLOG_SPAM_RETRY_BACKOFF = 1
BLOG_SPAM_RETRY_BACKOFF_MAX = 2
BLOG_SPAM_MAX_RETRIES = 2
BLOG_AKISMET_TIMEOUT = 1
