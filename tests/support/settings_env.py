"""Running Python in a child process on project.settings, with an environment of the test's."""

import os
import secrets
import subprocess
import sys

from django.conf import settings

# Variables that would make a child process inherit this test session's setup.
SESSION_VARIABLES = (
    "DJANGO_SETTINGS_MODULE",
    "DJANGO_DEBUG",
    "DJANGO_SECRET_KEY",
    "DJANGOFEEDS_ALLOW_PRIVATE_HOSTS",
)


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
    """The environment of a production deployment: DEBUG off, a real secret, a host."""
    return {
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "blog.example.com",
        "DJANGO_CSRF_TRUSTED_ORIGINS": "https://blog.example.com",
    }
