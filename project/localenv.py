"""The local env file: one configuration for ``make run`` and every command of the checkout.

``make run`` writes ``.env.local`` beside ``manage.py`` (a generated secret key
and the development flags) if it is missing; the settings read it, so
``manage.py`` and ``celery`` in another terminal run on exactly the stack's
configuration, with nothing exported. A variable set in the environment wins
over the file. ``DJANGO_ENV_FILE`` names another file, or none when empty (the
tests and benchmarks set their own environment). Not ``.env``: that is
docker compose's file of production secrets (docs/operations.md).
"""

import os
import secrets
from pathlib import Path

from dotenv import dotenv_values, load_dotenv

BASE_DIR = Path(__file__).resolve().parent.parent
DEFAULT_PATH = BASE_DIR / ".env.local"

# What make run needs and a fresh checkout lacks; the secret is generated per checkout.
DEV_DEFAULTS = {
    "DJANGO_DEBUG": "1",
    "DJANGOFEEDS_ALLOW_PRIVATE_HOSTS": "1",
}
HEADER = """\
# Development settings of this checkout, written by `make run` and read by
# project/settings.py for make run, manage.py and celery alike. Never commit it;
# never use it in production. A variable exported in the shell wins over this
# file. Any variable of docs/configuration.md's table may be set here.
"""
# Settings that decide where and how the stack runs: exported in make run's
# shell but not in the file, the commands of another terminal would differ.
PREFIXES = ("DJANGO_", "DJANGOFEEDS_", "BLOG_", "AKISMET_")
NAMES = {"DATABASE_URL", "CELERY_BROKER_URL", "MEMCACHED_LOCATION"}
NOT_SETTINGS = {"DJANGO_SETTINGS_MODULE", "DJANGO_ENV_FILE"}


def path():
    """The env file to read: DJANGO_ENV_FILE, .env.local by default; None when set empty."""
    value = os.environ.get("DJANGO_ENV_FILE")
    if value is None:
        return DEFAULT_PATH
    return Path(value) if value else None


def load():
    """Read the env file into os.environ without overriding what is set; return its path."""
    env_file = path()
    if env_file is not None:
        load_dotenv(env_file, override=False)
    return env_file


def ensure_dev_file():
    """Create the env file, or complete it, with the development defaults; return its path.

    Only missing variables are added: what the developer wrote stays as it is.
    """
    env_file = path()
    if env_file is None:
        return None
    existing = dotenv_values(env_file) if env_file.exists() else {}
    missing = {name: value for name, value in DEV_DEFAULTS.items() if name not in existing}
    if "DJANGO_SECRET_KEY" not in existing:
        missing["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)
    if missing:
        lines = [] if existing or env_file.exists() else [HEADER]
        lines += [f"{name}={value}\n" for name, value in missing.items()]
        # Created owner-only: it holds the secret key.
        descriptor = os.open(env_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(descriptor, "a") as file:
            file.writelines(lines)
    return env_file


def exported_but_not_in_file(env_file):
    """Settings exported in this shell with another value than the env file gives them."""
    in_file = dotenv_values(env_file) if env_file is not None and env_file.exists() else {}
    return sorted(
        name
        for name, value in os.environ.items()
        if (name in NAMES or name.startswith(PREFIXES))
        and name not in NOT_SETTINGS
        and in_file.get(name) != value
    )
