"""Helpers of the blog's tests: the stand-in's key, worker settings, fresh visitor addresses."""

import ipaddress
import uuid

KEY = "test-key"
# Retries in seconds, for tasks run in this process and in workers (worker_settings.py).
FAST_RETRIES = {
    "BLOG_SPAM_RETRY_BACKOFF": 1,
    "BLOG_SPAM_RETRY_BACKOFF_MAX": 2,
    "BLOG_SPAM_MAX_RETRIES": 2,
    "BLOG_AKISMET_TIMEOUT": 1,
}

# What Akismet uses, as the issue lists it: every check must send all of it.
PAYLOAD_FIELDS = {
    "user_ip",
    "user_agent",
    "referrer",
    "permalink",
    "comment_type",
    "comment_author",
    "comment_author_email",
    "comment_author_url",
    "comment_content",
    "comment_date_gmt",
    "comment_post_modified_gmt",
    "blog_lang",
    "blog_charset",
    "user_role",
    "honeypot_field_name",
    "website",  # the honeypot's value, under its name (blog.spam.HONEYPOT_FIELD)
}


def worker_env(stand_in, key=KEY, **extra):
    """Environment of a worker that checks comments against the stand-in."""
    return {
        "DJANGO_SETTINGS_MODULE": "tests.blog.worker_settings",
        "AKISMET_API_KEY": key,
        "AKISMET_API_URL": stand_in.url,
        **extra,
    }


def fresh_ip():
    """An address no other test uses (2001:db8::/32, 96 random bits).

    The rate limit's counters live in the cache, which memcached keeps across
    tests and test runs: a test that counts must not share its visitor's address.
    """
    return str(ipaddress.IPv6Address(0x20010DB8 << 96 | uuid.uuid4().int >> 32))
