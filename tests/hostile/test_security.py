"""Security rows of the matrix (issue 7): admin permissions, /healthz, the JSON-only worker,
SSRF through OPML, production settings, secrets, and the development superuser."""

import io
import json
import logging
import re
import secrets
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from akismet import APIKeyError
from django.conf import settings as django_settings
from django.contrib.auth.models import Permission, User
from django.core.management import CommandError, call_command
from django.test import Client
from django_celery_results.models import TaskResult

from blog.models import Comment, CommentEvent
from djangofeeds.models import Feed, ImportRun
from localservers.feed_server import numbered_items, rss
from localservers.services import free_port
from localservers.waiting import wait_until
from project.celery import app as celery_app
from project.redact import HideSecrets
from project.tasks import add
from tests.blog.helpers import fresh_ip, worker_env
from tests.factories import CommentFactory, EntryFactory, FeedFactory
from tests.support.settings_env import production_env, run_python

BASE = Path(django_settings.BASE_DIR)

# --- admin actions --------------------------------------------------------------

ACTIONS = [
    ("/admin/djangofeeds/feed/", action)
    for action in ("import_now", "activate", "deactivate", "reset_errors")
] + [("/admin/blog/comment/", action) for action in ("mark_spam", "mark_ham", "recheck", "publish")]


@pytest.fixture
def viewer(client):
    """A logged-in staff user who may look at feeds and comments, not change them."""
    user = User.objects.create_user("viewer", password="pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_feed", "view_comment"])
    )
    client.force_login(user)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize(("changelist", "action"), ACTIONS, ids=[action for _, action in ACTIONS])
def test_admin_actions_require_the_right_permission(viewer, changelist, action):
    """A staff user without the change permission cannot run an action, even by posting it."""
    # A state each feed action would change: "deactivate" needs an active feed.
    active = action == "deactivate"
    feed = FeedFactory(is_active=active, error_count=3, last_error="boom")
    comment = CommentFactory(status="pending")
    selected = feed.pk if "feed" in changelist else comment.pk

    assert viewer.get(changelist).status_code == 200  # may look
    viewer.post(changelist, {"action": action, "_selected_action": [selected]})

    feed.refresh_from_db()
    assert (feed.is_active, feed.error_count, feed.last_error) == (active, 3, "boom")
    assert feed.claimed_at is None  # no import queued
    assert Comment.objects.get().status == "pending" and not CommentEvent.objects.exists()


# --- /healthz -------------------------------------------------------------------


@pytest.mark.django_db
def test_healthz_reveals_no_secrets(client, settings, memcached_cache, use_broker):
    """Neither when all is well nor when parts fail: no key, password, host or URL."""
    settings.SECRET_KEY = "secret-key-" + secrets.token_hex(16)
    settings.AKISMET_API_KEY = "akismet-" + secrets.token_hex(8)
    broker_password = "broker-" + secrets.token_hex(8)
    secrets_ = [
        settings.SECRET_KEY,
        settings.AKISMET_API_KEY,
        broker_password,
        memcached_cache.location,
        str(memcached_cache.port),
        settings.DATABASES["default"].get("PASSWORD") or settings.SECRET_KEY,
        str(settings.DATABASES["default"]["NAME"]),
    ]
    answers = [client.get("/healthz")]
    memcached_cache.stop()
    use_broker(f"redis://:{broker_password}@127.0.0.1:{free_port()}/0")
    answers.append(client.get("/healthz"))

    assert [answer.status_code for answer in answers] == [200, 503]
    assert answers[1].json()["failed"] == ["cache", "broker"]
    for answer in answers:
        text = answer.content.decode() + json.dumps(dict(answer.headers))
        assert not [secret for secret in secrets_ if secret in text]
        assert not re.search(r"redis://|127\.0\.0\.1|sqlite|postgres:", text, re.IGNORECASE)


# --- the JSON serializer only ---------------------------------------------------


class CreatesAFileWhenUnpickled:
    """A pickle payload that runs code on load: ``open(path, "w")``."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.django_db(transaction=True)
def test_json_serializer_only_a_pickle_message_is_refused(celery_worker, tmp_path):
    """A pickled message that would run code when loaded is refused unopened; the worker goes on."""
    marker = tmp_path / "pickle-ran"
    celery_app.send_task(
        "project.tasks.add", args=(CreatesAFileWhenUnpickled(str(marker)), 1), serializer="pickle"
    )

    assert add.delay(20, 22).get(timeout=30) == 42
    assert not marker.exists()
    assert "Refusing to deserialize untrusted content of type pickle" in celery_worker.output


# --- SSRF through OPML ----------------------------------------------------------


def opml(urls):
    outlines = "".join(f'<outline type="rss" text="x" xmlUrl="{url}"/>' for url in urls)
    return f'<?xml version="1.0"?><opml version="2.0"><body>{outlines}</body></opml>'.encode()


@pytest.mark.django_db
def test_ssrf_rules_apply_to_opml_imports_too(feed_server, settings, tmp_path, memcached_cache):
    """Private addresses in any spelling are refused when the OPML is read, or when the URL
    is fetched for names that only DNS can tell (by the discovery fetch of opml_import, or by
    the import after ``--no-discover``): the local server is never reached."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    feed_server.serve("/inside.xml", rss(numbered_items(1)))
    port = feed_server.port
    refused_at_once = [
        f"http://127.0.0.1:{port}/inside.xml",
        f"http://127.1:{port}/inside.xml",
        f"http://0x7f.0.0.1:{port}/inside.xml",
        f"http://2130706433:{port}/inside.xml",
        f"http://[::ffff:127.0.0.1]:{port}/inside.xml",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/feed",
        "file:///etc/passwd",
        "gopher://127.0.0.1:6379/_FLUSHALL",
        "http://user:pw@example.com/feed",
    ]
    refused_when_fetched = [f"http://localhost:{port}/inside.xml"]
    path = tmp_path / "subscriptions.opml"
    path.write_bytes(opml(refused_at_once + refused_when_fetched))

    out = io.StringIO()
    call_command("opml_import", str(path), stdout=out)

    assert "0 added, 0 skipped, 11 invalid" in out.getvalue()
    assert "localhost resolves to a non-public address" in out.getvalue()
    assert not Feed.objects.exists()

    call_command("opml_import", str(path), "--no-discover", stdout=io.StringIO())

    assert set(Feed.objects.values_list("url", flat=True)) == set(refused_when_fetched)
    with pytest.raises(CommandError, match="1 of 1 import failed"):
        call_command("import_feeds", "--all", "--sync")
    assert "localhost resolves to a non-public address" in ImportRun.objects.get().error
    assert feed_server.requests == []


# --- production settings, secrets, the development superuser --------------------


def compose_app_environment(values):
    """The environment docker-compose.yml gives web, worker and beat, with ``values`` as .env."""

    def substitute(match):
        name, default = match["name"], match["default"] or ""
        if match["kind"] == ":?" and name not in values:
            raise AssertionError(f"{name} is required by docker-compose.yml")
        return values.get(name, default if match["kind"] == ":-" else "")

    environment = yaml.safe_load((BASE / "docker-compose.yml").read_text())["x-app"]["environment"]
    pattern = r"\$\{(?P<name>\w+)(?:(?P<kind>:[-?])(?P<default>[^}]*))?\}"
    return {name: re.sub(pattern, substitute, str(value)) for name, value in environment.items()}


def test_compose_publishes_only_the_proxy():
    """Only nginx (proxy) listens on the host, on 80 and 443; web, postgres, redis and
    memcached publish nothing. X-Forwarded-For is believed only from named proxies, never
    from every client."""
    compose = yaml.safe_load((BASE / "docker-compose.yml").read_text())
    published = {
        name: service["ports"]
        for name, service in compose["services"].items()
        if "ports" in service
    }
    environment = compose["x-app"]["environment"]

    assert published == {"proxy": ["80:80", "443:443"]}
    assert "BLOG_TRUST_X_FORWARDED_FOR" not in environment
    assert "BLOG_TRUSTED_PROXIES" in environment


def test_the_old_trust_everyone_switch_is_refused_with_what_to_do_instead():
    """BLOG_TRUST_X_FORWARDED_FOR=1 (trust the header from anyone) stops the settings with a
    message naming BLOG_TRUSTED_PROXIES; a proxy list that is no address is named too."""
    old = run_python(["manage.py", "check"], DJANGO_DEBUG="1", BLOG_TRUST_X_FORWARDED_FOR="1")
    bad = run_python(["manage.py", "check"], DJANGO_DEBUG="1", BLOG_TRUSTED_PROXIES="10.0.0.1,x")
    good = run_python(["manage.py", "check"], DJANGO_DEBUG="1", BLOG_TRUSTED_PROXIES="10.0.0.0/8")

    assert old.returncode != 0 and "BLOG_TRUSTED_PROXIES" in old.stderr
    assert bad.returncode != 0 and "BLOG_TRUSTED_PROXIES: 'x' is not an IP" in bad.stderr
    assert good.returncode == 0, good.stderr


def test_check_deploy_clean_in_production_settings():
    """With exactly the environment docker-compose.yml sets, check --deploy reports nothing."""
    values = production_env() | {"POSTGRES_PASSWORD": secrets.token_urlsafe(24)}
    env = compose_app_environment(values)
    assert env["DJANGO_SECRET_KEY"] == values["DJANGO_SECRET_KEY"]

    result = run_python(["manage.py", "check", "--deploy", "--fail-level", "DEBUG"], **env)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


SHOW_SECRETS = """
import json, django
django.setup()
from django.conf import settings
print(json.dumps({
    "secret_key": settings.SECRET_KEY,
    "akismet": settings.AKISMET_API_KEY,
    "db_password": settings.DATABASES["default"]["PASSWORD"],
    "broker": settings.CELERY_BROKER_URL,
}))
"""


def test_secrets_only_from_the_environment():
    """Each secret setting is what the environment says; compose and the repository hold none."""
    values = production_env() | {
        "AKISMET_API_KEY": secrets.token_hex(6),
        "DATABASE_URL": f"postgres://app:{secrets.token_hex(8)}@db.example:5432/app",
        "CELERY_BROKER_URL": f"redis://:{secrets.token_hex(8)}@redis.example:6379/0",
    }
    result = run_python(["-c", SHOW_SECRETS], **values)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout.strip().splitlines()[-1])
    assert shown["secret_key"] == values["DJANGO_SECRET_KEY"]
    assert shown["akismet"] == values["AKISMET_API_KEY"]
    assert shown["db_password"] in values["DATABASE_URL"]
    assert shown["broker"] == values["CELERY_BROKER_URL"]

    compose = yaml.safe_load((BASE / "docker-compose.yml").read_text())
    environments = [compose["x-app"]["environment"]]
    environments += [service.get("environment", {}) for service in compose["services"].values()]
    for environment in environments:
        for name in {"DJANGO_SECRET_KEY", "POSTGRES_PASSWORD", "AKISMET_API_KEY"} & set(
            environment
        ):
            assert environment[name].startswith("${"), f"a literal {name} in docker-compose.yml"
        if "DATABASE_URL" in environment:
            assert ":${POSTGRES_PASSWORD" in environment["DATABASE_URL"]
    for ignore in (".gitignore", ".dockerignore"):
        assert ".env" in (BASE / ignore).read_text().split()


@pytest.mark.django_db
def test_the_dev_superuser_never_exists_in_production_settings():
    """``make run``'s superuser is refused with DEBUG off, and no migration creates a user."""
    create = (
        "import django; django.setup()\n"
        "from project.devstack_setup import ensure_dev_superuser\n"
        "ensure_dev_superuser()"
    )

    result = run_python(["-c", create], **production_env())

    assert result.returncode != 0
    assert "Refusing to create a development superuser with DEBUG off" in result.stderr
    assert not User.objects.exists()  # the migrated test database has no user at all


# --- no secret in logs or stored messages ---------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_refused_akismet_key_is_never_logged_nor_stored(
    client, settings, private_broker, akismet, worker_factory
):
    """The akismet library quotes a refused key in its message ("Found API key: ..."): a real
    worker checking a comment with such a key logs the refusal, and the key appears nowhere in
    its log, in the comment's history or in the stored task results."""
    key = "refused-" + secrets.token_hex(12)
    env = worker_env(akismet, key=key) | {"CELERY_BROKER_URL": private_broker.url}
    worker = worker_factory(queues=["spam"], concurrency=1, env=env)
    settings.AKISMET_API_KEY, settings.AKISMET_API_URL = key, akismet.url
    entry = EntryFactory()
    settings.BLOG_COMMENTS_PER_MINUTE = 0

    for _ in range(2):  # the second check finds the refusal remembered: logged again
        response = client.post(
            f"/blog/{entry.slug}/comment/",
            {"name": "Ada", "email_address": "ada@example.com", "comment": "Hello there"},
        )
        assert response.status_code == 303
    wait_until(
        lambda: CommentEvent.objects.filter(kind="check_failed").count() == 2,
        30,
        message="two refused checks",
    )
    wait_until(
        lambda: worker.output.count("Akismet refused the configuration") == 2,
        10,
        message="both refusals logged",
    )

    assert akismet.calls("verify-key")  # the key did reach Akismet, and was refused
    assert key not in worker.output
    stored = [
        *CommentEvent.objects.values_list("detail", flat=True),
        *(str(row) for row in TaskResult.objects.values_list("result", "traceback", "meta")),
    ]
    assert stored and not [text for text in stored if key in text]


def test_log_lines_and_tracebacks_hide_configured_secrets(settings):
    """What any code logs, message or traceback, goes out without the configured secrets."""
    settings.AKISMET_API_KEY = "akismet-" + secrets.token_hex(8)
    [handler] = [
        h
        for h in logging.getLogger().handlers
        if any(isinstance(f, HideSecrets) for f in h.filters)
    ]
    try:
        raise APIKeyError(f"Found API key: {settings.AKISMET_API_KEY}")
    except APIKeyError:
        record = logging.getLogger("blog").makeRecord(
            "blog",
            logging.ERROR,
            __file__,
            1,
            "key %s refused",
            (settings.AKISMET_API_KEY,),
            sys.exc_info(),
        )

    assert handler.filter(record)
    line = handler.format(record)

    assert settings.AKISMET_API_KEY not in line
    assert line.count("[hidden]") == 2 and "Traceback" in line


# --- admin login attempts -------------------------------------------------------


def log_in(client, password, ip, **headers):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": "operator", "password": password},
        REMOTE_ADDR=ip,
        **headers,
    )


@pytest.mark.django_db
def test_admin_login_locks_out_an_address_after_repeated_failures(client, settings):
    """After DJANGO_LOGIN_FAILURE_LIMIT wrong passwords an address gets 429, even with the right
    password and a forged X-Forwarded-For; another address still logs in; after the cool-off
    the right password works again."""
    settings.AXES_FAILURE_LIMIT = 3
    settings.AXES_COOLOFF_TIME = timedelta(seconds=2)
    User.objects.create_user("operator", password="right-password", is_staff=True)
    attacker, colleague = fresh_ip(), fresh_ip()

    failures = [log_in(client, f"guess-{n}", attacker).status_code for n in range(3)]
    locked = [
        log_in(client, "right-password", attacker).status_code,
        log_in(client, "guess", attacker, HTTP_X_FORWARDED_FOR=fresh_ip()).status_code,
    ]
    other = log_in(Client(), "right-password", colleague)
    time.sleep(2.5)  # the cool-off runs from the last failure
    later = log_in(Client(), "right-password", attacker)

    assert failures[:2] == [200, 200]  # the form again, with its error
    assert failures[2] == 429 and locked == [429, 429]
    assert (other.status_code, other["Location"]) == (302, "/admin/")
    assert (later.status_code, later["Location"]) == (302, "/admin/")
