"""Migration 0018 gives the feeds of an existing database the health they already show."""

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from djangofeeds.models import Feed

BEFORE = ("djangofeeds", "0017_post_newest_idx")


@pytest.mark.django_db(transaction=True)
def test_migration_0018_marks_failing_and_gone_feeds_of_an_existing_database():
    executor = MigrationExecutor(connection)
    try:
        executor.migrate([BEFORE])
        OldFeed = executor.loader.project_state([BEFORE]).apps.get_model("djangofeeds", "Feed")
        last_success = timezone.now() - timedelta(days=3)
        OldFeed.objects.create(url="https://fine.example/", error_count=0)
        OldFeed.objects.create(
            url="https://failing.example/", error_count=4, last_success_at=last_success
        )
        OldFeed.objects.create(
            url="https://gone.example/", error_count=1, is_active=False, last_http_status=410
        )
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())

    health = dict(Feed.objects.values_list("url", "health"))
    assert health == {
        "https://fine.example/": "ok",
        "https://failing.example/": "failing",
        "https://gone.example/": "gone",
    }
    assert Feed.objects.get(url="https://failing.example/").failing_since == last_success
