"""Settings of the mail tests' worker: the blog's worker settings, comments held for a
moderator, and mail retries in seconds. Its mail server and the site's address come from
the environment (EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT, BLOG_SITE_URL: tests/mail/conftest.py)."""

from tests.blog.worker_settings import *  # noqa: F403

BLOG_HOLD_FOR_MODERATION = True
BLOG_TRUST_APPROVED = False  # every comment of these tests waits for the moderator
BLOG_MODERATORS = ["Mo Derator <mod@example.com>"]
DEFAULT_FROM_EMAIL = "blog@example.com"
BLOG_MAIL_RETRY_BACKOFF = 1
BLOG_MAIL_RETRY_BACKOFF_MAX = 1
BLOG_MAIL_MAX_RETRIES = 2
