"""Unchanged by issue 21."""

from tests.support.migrations_before_21 import todays

Migration = todays("djangofeeds", "0003_posts_undated_last_and_fetchable_urls")
