"""``manage.py feed_health``: counts per state, the feeds that need a look, the digest now."""

from io import StringIO

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.utils import timezone

from djangofeeds.models import Feed, Health, HealthChange

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("feed_health", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def feeds():
    Feed.objects.create(url="https://ok.example/feed")
    dead = Feed.objects.create(url="https://dead.example/feed", health=Health.DEAD)
    Feed.objects.filter(pk=dead.pk).update(last_error="HTTP 503")
    quiet = Feed.objects.create(url="https://quiet.example/feed", health=Health.SILENT)
    HealthChange.objects.create(
        feed=quiet, changed_at=timezone.now(), old="ok", new="silent", reason="no new entry since X"
    )


def test_feed_health_counts_and_lists_the_feeds_that_need_a_look(feeds):
    out, _ = run()
    lines = out.splitlines()
    assert lines[0] == "ok: 1, failing: 0, dead: 1, moved: 0, gone: 0, silent: 1"
    assert "dead     https://dead.example/feed  HTTP 503" in lines
    assert "silent   https://quiet.example/feed  no new entry since X" in lines
    assert "ok.example" not in out


def test_feed_health_state_lists_one_state(feeds):
    out, _ = run("--state", "silent")
    assert "quiet.example" in out and "dead.example" not in out
    with pytest.raises(CommandError):
        run("--state", "sleeping")


def test_feed_health_digest_mails_now(feeds, settings):
    settings.ADMINS = ["ops@example.org"]
    _, err = run("--digest")
    assert err.strip() == "Digest: 1 change mailed."
    assert mail.outbox[0].to == ["ops@example.org"]
    HealthChange.objects.all().delete()
    _, err = run("--digest")
    assert "nothing to mail" in err and len(mail.outbox) == 1
