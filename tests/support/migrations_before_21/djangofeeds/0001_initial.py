"""Unchanged by issue 21."""

from tests.support.migrations_before_21 import todays

Migration = todays("djangofeeds", "0001_initial")
