"""Both apps on a host without the optional libraries: pymemcache, akismet,
django-celery-results and django-celery-beat (SPEC section 8).

Each case runs tests/support/minimal_host/run_apps.py in a fresh process on the
minimal host's settings (no Celery settings, no routes, no beat, no results): it
imports every module of both apps, runs ``check`` and ``migrate``, the cleanup, a
comment's spam check and an import queued by URL.
"""

import pytest
from django.conf import settings

from tests.support.children import json_report

EVERY_TASK = {
    "djangofeeds.tasks.import_feed",
    "djangofeeds.tasks.import_feed_batch",
    "djangofeeds.tasks.refresh_feeds",
    "djangofeeds.tasks.cleanup",
    "djangofeeds.tasks.subscribe_feed",
    "djangofeeds.tasks.publish_to_hubs",
    "djangofeeds.tasks.store_push",
    "djangofeeds.tasks.renew_subscriptions",
    "djangofeeds.tasks.index_posts",
    "djangofeeds.tasks.send_health_digest",
    "djangofeeds.tasks.apply_rules",
    "blog.tasks.spam_filter",
    "blog.tasks.submit_spam",
    "blog.tasks.submit_ham",
    "blog.tasks.recheck_pending_comments",
    "blog.tasks.purge_spam",
    "blog.tasks.mail_moderators",
    "blog.tasks.mail_reply_notice",
}


def run_apps(tmp_path, *args):
    env = {
        "PATH": "/usr/bin:/bin",
        "MINIMAL_HOST_DB": str(tmp_path / "db.sqlite3"),
        "MINIMAL_HOST_CACHE": str(tmp_path / "cache"),
    }
    return json_report("tests.support.minimal_host.run_apps", *args, env=env, cwd=settings.BASE_DIR)


@pytest.fixture(scope="module")
def blocked(tmp_path_factory):
    """The report of a run with the optional libraries unimportable."""
    return run_apps(tmp_path_factory.mktemp("blocked"), "--block")


def test_apps_run_with_the_optional_libraries_unimportable(blocked):
    """With the four libraries raising ImportError, every module of both apps imports but
    the Akismet backend's own (it names the missing library), ``check`` passes with no
    warning, ``migrate`` runs; the cleanup prunes no task result, the local rules judge a
    comment, and setup_schedules says what to do instead."""
    report = blocked

    assert {"djangofeeds.locking.backends", "djangofeeds.importing.retention", "blog.spam"} <= set(
        report["imported"]
    )
    assert list(report["refused"]) == ["blog.akismet_client"]
    assert "akismet" in report["refused"]["blog.akismet_client"]
    assert "djangofeeds.management.commands.setup_schedules" in report["imported"]
    assert report["cleanup"]["task_results"] == 0
    assert (report["is_spam"], report["comment_status"]) == (False, "published")
    assert "django-celery-beat is not in INSTALLED_APPS" in report["setup_schedules"]
    assert "CELERY_BEAT_SCHEDULE" in report["setup_schedules"]


def test_apps_import_no_optional_library_they_do_not_use(tmp_path):
    """With the libraries installed but unused (no memcached cache, no Akismet key, beat
    and results not in INSTALLED_APPS), the same run imports none of them."""
    report = run_apps(tmp_path)

    assert report["optional_imported"] == []
    assert report["cleanup"]["task_results"] == 0


def test_apps_without_routes_send_every_task_to_the_default_queue(blocked):
    """On a Celery app without task_routes every task of both apps goes to the default
    queue, and an import queued by URL is a message waiting there."""
    report = blocked

    assert report["queues"] == dict.fromkeys(EVERY_TASK, "celery")
    assert (report["import_queue"], report["import_messages"]) == ("celery", 1)
