"""Settings from the environment: production safety, and a broker outage that fails fast."""

import json
import os
import secrets
import subprocess
import sys

import pytest
from django.conf import settings

from tests.support.services import free_port

# Variables that would make a child process inherit this test session's setup.
SESSION_VARIABLES = ("DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG", "DJANGO_SECRET_KEY")


def run_python(args, **env):
    """Run ``python args`` in the project with project.settings and the given environment."""
    child_env = {k: v for k, v in os.environ.items() if k not in SESSION_VARIABLES}
    child_env.update(DJANGO_SETTINGS_MODULE="project.settings", **env)
    return subprocess.run(
        [sys.executable, *args],
        cwd=settings.BASE_DIR,
        env=child_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def production_env():
    return {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "blog.example.com",
        "DJANGO_CSRF_TRUSTED_ORIGINS": "https://blog.example.com",
    }


def test_check_deploy_is_clean_in_production():
    """manage.py check --deploy reports nothing with DEBUG off and a real secret."""
    result = run_python(
        ["manage.py", "check", "--deploy", "--fail-level", "DEBUG"], **production_env()
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_warns_when_https_is_switched_off():
    """The deploy check is not vacuous: turning HTTPS redirects off is reported."""
    env = production_env() | {"DJANGO_SECURE_SSL_REDIRECT": "0"}
    result = run_python(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **env)
    assert result.returncode != 0
    assert "security.W008" in result.stdout + result.stderr


def test_dev_secret_key_is_refused_with_debug_off():
    """DEBUG off without DJANGO_SECRET_KEY stops with a message that says what to do."""
    result = run_python(["manage.py", "check"], DJANGO_DEBUG="0")
    assert result.returncode != 0
    assert "Configuration error: DJANGO_DEBUG is off but DJANGO_SECRET_KEY is not set" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr


def test_bad_boolean_is_a_clear_error():
    """A typo in a boolean variable names the variable instead of guessing."""
    result = run_python(["manage.py", "check"], DJANGO_DEBUG="maybe")
    assert result.returncode != 0
    assert "DJANGO_DEBUG must be 0 or 1, not 'maybe'" in result.stderr
    assert "Traceback" not in result.stderr


DISPATCH_WITH_BROKER_DOWN = """
import json, time, django
django.setup()
from project.tasks import add
started = time.monotonic()
try:
    add.delay(1, 1)
    error = None
except Exception as exc:
    error = type(exc).__name__
print(json.dumps({"seconds": time.monotonic() - started, "error": error}))
"""


@pytest.mark.parametrize(
    "url_shape", ["redis://127.0.0.1:{port}/0", "amqp://guest:guest@127.0.0.1:{port}//"]
)
def test_dispatch_with_broker_down_gives_up_quickly(url_shape):
    """With Redis or RabbitMQ unreachable, .delay() raises after a bounded retry instead of
    hanging."""
    url = url_shape.format(port=free_port())  # nothing listens there
    result = run_python(["-c", DISPATCH_WITH_BROKER_DOWN], CELERY_BROKER_URL=url, DJANGO_DEBUG="1")
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["error"] == "OperationalError"
    # A hang would be Celery's default: retrying for 100 seconds or more.
    assert outcome["seconds"] < 3, outcome
