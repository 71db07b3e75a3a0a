"""The weekly health digest: the week's changes mailed through Django's mail backend, by a
beat task; in the outbox, and once at a real SMTP server on loopback."""

from datetime import timedelta

import django
import pytest
from django.core import mail
from django.utils import timezone

from djangofeeds import schedules
from djangofeeds.health.digest import send_digest
from djangofeeds.models import Feed, Health, HealthChange
from djangofeeds.tasks import send_health_digest
from localservers.smtp_server import SmtpServer

pytestmark = pytest.mark.django_db


def change(feed, new, *, days_ago, reason="", old=Health.OK):
    return HealthChange.objects.create(
        feed=feed,
        changed_at=timezone.now() - timedelta(days=days_ago),
        old=old,
        new=new,
        reason=reason,
    )


@pytest.fixture
def week(settings):
    """Two feeds that changed this week, one change from last month."""
    settings.ADMINS = ["ops@example.org", ("Night shift", "night@example.org")]
    gone = Feed.objects.create(url="https://gone.example/feed", title="Gone <b>news</b>")
    moved = Feed.objects.create(url="https://moved.example/rss", health=Health.MOVED)
    Feed.objects.filter(pk=gone.pk).update(health=Health.GONE, is_active=False)
    change(gone, Health.GONE, days_ago=2, reason="410 Gone: the feed was removed; deactivated")
    change(moved, Health.MOVED, days_ago=1, reason="moved permanently to https://moved.example/rss")
    change(moved, Health.FAILING, days_ago=40, reason="an old failure")
    return gone, moved


def test_the_digest_mails_the_weeks_changes_to_the_admins_as_text_and_html(week):
    assert send_digest() == 2

    [message] = mail.outbox
    assert message.to == ["ops@example.org", "Night shift <night@example.org>"]
    assert message.subject == "Feed health: 2 changes this week"
    body = message.body
    assert "https://gone.example/feed>: ok → gone" in body
    assert "410 Gone: the feed was removed; deactivated" in body
    assert "moved permanently to https://moved.example/rss" in body
    assert "an old failure" not in body
    assert body.index("moved.example") < body.index("gone.example")  # newest first
    assert "gone 1" in body and "moved 1" in body
    [(html, kind)] = message.alternatives
    assert kind == "text/html"
    assert "Gone &lt;b&gt;news&lt;/b&gt;" in html and "<b>news" not in html


def test_no_change_no_mail_and_digest_to_overrides_the_admins(week, settings):
    HealthChange.objects.filter(changed_at__gte=timezone.now() - timedelta(days=7)).delete()
    assert send_digest() == 0 and mail.outbox == []

    change(Feed.objects.first(), Health.SILENT, days_ago=0)
    settings.DJANGOFEEDS_DIGEST_TO = ["planet@example.org"]
    assert send_digest() == 1
    assert mail.outbox[0].to == ["planet@example.org"]

    settings.DJANGOFEEDS_DIGEST_TO = []  # no one: nothing sent, said in the log
    assert send_digest() == 0 and len(mail.outbox) == 1


def test_the_digest_links_the_admins_health_page_under_the_public_url(week, settings):
    settings.DJANGOFEEDS_PUBLIC_URL = "https://planet.example/"
    send_digest()
    assert "https://planet.example/admin/djangofeeds/feed/health/" in mail.outbox[0].body


def test_beat_sends_the_digest_weekly():
    entry = schedules.BEAT_SCHEDULE["djangofeeds: mail the weekly feed health digest"]
    assert entry["task"] == send_health_digest.name
    assert entry["schedule"] == 7 * 24 * 3600


def test_the_digest_task_reaches_a_real_smtp_server_and_retries_when_it_is_down(week, settings):
    """Through Django's SMTP backend to a local server; refused for now (451), the task is
    tried again (at once here: eager; with a backoff on a worker)."""
    server = SmtpServer().start()
    try:
        smtp = "django.core.mail.backends.smtp.EmailBackend"
        if django.VERSION >= (6, 1):  # MAILERS replaces the EMAIL_ settings
            options = {"host": server.host, "port": server.port}
            settings.MAILERS = {"default": {"BACKEND": smtp, "OPTIONS": options}}
        else:
            settings.EMAIL_BACKEND = smtp
            settings.EMAIL_HOST, settings.EMAIL_PORT = server.host, server.port
        server.fail_next(1)  # a temporary refusal (451): the task is tried again
        assert send_health_digest.apply().get() == 2

        [message] = server.to("night@example.org")
        assert message["Subject"] == "Feed health: 2 changes this week"
        assert "ok → gone" in message.get_body(("plain",)).get_content()

        server.fail_next(10)  # refused past the task's retries: the error is the task's
        failed = send_health_digest.apply()
        assert failed.state == "FAILURE" and "451" in str(failed.result)
        assert len(server.messages) == 1
    finally:
        server.stop()
