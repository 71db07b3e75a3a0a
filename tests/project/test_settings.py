"""Settings from the environment: production safety, and a broker outage that fails fast."""

import json
import re
import secrets

import pytest

from localservers.services import free_port
from tests.support.settings_env import production_env, run_python


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


def test_check_deploy_warns_when_private_hosts_are_allowed():
    """Feeds on private addresses in production are reported (djangofeeds.W002), only there."""
    env = production_env() | {"DJANGOFEEDS_ALLOW_PRIVATE_HOSTS": "1"}
    deploy = run_python(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **env)
    plain = run_python(["manage.py", "check", "--fail-level", "WARNING"], **env)

    assert deploy.returncode != 0
    assert "djangofeeds.W002" in deploy.stdout + deploy.stderr
    assert "DJANGOFEEDS_ALLOW_PRIVATE_HOSTS is on" in deploy.stdout + deploy.stderr
    assert plain.returncode == 0 and "W002" not in plain.stdout + plain.stderr


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


@pytest.mark.serial  # a timing bound: not beside other tests (xdist)
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


SHOW_SETTINGS = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps([s.DEBUG, s.SECRET_KEY, s.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS, "
    "s.DJANGOFEEDS_FETCH_TIMEOUT]))"
)


def write_env_file(folder, text):
    env_file = folder / "local.env"
    env_file.write_text(text)
    return str(env_file)


def test_env_file_configures_every_command(tmp_path):
    """Values of the env file reach the settings of a command run with nothing exported."""
    key = secrets.token_urlsafe(50)
    env_file = write_env_file(
        tmp_path,
        f"DJANGO_DEBUG=1\nDJANGO_SECRET_KEY={key}\nDJANGOFEEDS_ALLOW_PRIVATE_HOSTS=1\n"
        "DJANGOFEEDS_FETCH_TIMEOUT=7\n",
    )
    result = run_python(["-c", SHOW_SETTINGS], DJANGO_ENV_FILE=env_file)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [True, key, True, 7]


def test_exported_variables_win_over_the_env_file(tmp_path):
    """A variable set in the environment overrides the file's value of it."""
    env_file = write_env_file(
        tmp_path, "DJANGO_DEBUG=1\nDJANGOFEEDS_ALLOW_PRIVATE_HOSTS=1\nDJANGOFEEDS_FETCH_TIMEOUT=7\n"
    )
    result = run_python(
        ["-c", SHOW_SETTINGS],
        DJANGO_ENV_FILE=env_file,
        DJANGOFEEDS_ALLOW_PRIVATE_HOSTS="0",
        DJANGOFEEDS_FETCH_TIMEOUT="3",
    )
    assert result.returncode == 0, result.stderr
    debug, _, private_hosts, timeout = json.loads(result.stdout)
    assert (debug, private_hosts, timeout) == (True, False, 3)


def test_env_file_without_a_secret_stays_strict_with_debug_off(tmp_path):
    """DEBUG off from the file, and no secret anywhere: refused as without a file."""
    env_file = write_env_file(tmp_path, "DJANGO_DEBUG=0\nDJANGOFEEDS_FETCH_TIMEOUT=7\n")
    result = run_python(["manage.py", "check"], DJANGO_ENV_FILE=env_file)
    assert result.returncode != 0
    assert "DJANGO_DEBUG is off but DJANGO_SECRET_KEY is not set" in result.stderr


def test_make_runs_env_file_is_clean_for_check_deploy_with_debug_off(tmp_path):
    """The env file make run writes, with DJANGO_DEBUG=0 exported, passes check --deploy but
    for one warning, true of it: it lets feeds on local servers in (djangofeeds.W002)."""
    env_file = tmp_path / ".env.local"
    code = "from project import localenv; print(localenv.ensure_dev_file())"
    created = run_python(["-c", code], DJANGO_ENV_FILE=str(env_file))
    assert created.returncode == 0, created.stderr
    assert env_file.stat().st_mode & 0o777 == 0o600  # it holds the secret key
    result = run_python(
        ["manage.py", "check", "--deploy", "--fail-level", "DEBUG"],
        DJANGO_ENV_FILE=str(env_file),
        DJANGO_DEBUG="0",
    )
    issues = re.findall(r"\(([\w.]+)\)", result.stdout + result.stderr)
    assert result.returncode != 0 and issues == ["djangofeeds.W002"], result.stdout + result.stderr


def test_on_the_newest_django_the_apps_deprecations_fail_their_test():
    """On Django 6.1 a deprecation raised from the apps' own modules is an error (conftest);
    one raised elsewhere, or on 5.2, stays a warning."""
    import warnings

    import django

    def warn_from(module):
        warnings.warn_explicit("old API", DeprecationWarning, f"{module}.py", 1, module=module)

    with warnings.catch_warnings(record=True):
        warn_from("some_library.models")  # not ours: never an error
    if django.VERSION >= (6, 1):
        for module in ("djangofeeds.importing.storage", "blog.views", "djangofeeds"):
            with pytest.raises(DeprecationWarning):
                warn_from(module)
    else:
        with warnings.catch_warnings(record=True) as caught:
            warn_from("djangofeeds.importing.storage")
        assert [str(warning.message) for warning in caught] == ["old API"]
