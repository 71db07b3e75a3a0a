"""Unchanged by issue 21."""

from tests.support.migrations_before_21 import todays

Migration = todays("blog", "0001_initial")
