"""Test settings: the project's own, with a private scratch folder per test session.

The folder (``DJANGO_VAR_DIR``) holds the filesystem broker and SQLite's test
database; worker subprocesses inherit it through the environment, so the tests
and their workers share one broker and one database, and nothing of a
``make run`` in the same checkout (nor its ``.env.local``: ``DJANGO_ENV_FILE`` is empty).
"""

import os
import tempfile

os.environ.setdefault("DJANGO_VAR_DIR", tempfile.mkdtemp(prefix="project-tests-"))
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ.setdefault("DJANGOFEEDS_ALLOW_PRIVATE_HOSTS", "1")
# No .env.local: a make run in this checkout must not configure the tests.
os.environ.setdefault("DJANGO_ENV_FILE", "")

from project.settings import *  # noqa: F403
from project.settings import CELERY_BROKER_TRANSPORT_OPTIONS, CELERY_BROKER_URL, VAR_DIR

if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # A shared Redis (CI's, a developer's) keeps this session's queues apart.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **CELERY_BROKER_TRANSPORT_OPTIONS,
        "global_keyprefix": f"{VAR_DIR.name}:",
    }

# Fast hashing: the suite creates users, and no password here needs protecting.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
