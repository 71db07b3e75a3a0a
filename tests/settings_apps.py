"""Settings that hold only the apps and Django's defaults, as a fresh host has them.

What ``django-admin startproject`` writes, plus the two apps, plus the test
database: no project setting, no app setting (each app runs on its ``conf``
defaults), Django's own ``DEFAULT_AUTO_FIELD`` (AutoField) and LocMem cache.
"""

import os
import tempfile
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = "django-insecure-tests-of-the-apps-alone"
DEBUG = True
ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "djangofeeds",
    "blog",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "tests.urls_apps"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# The database under test: SQLite in a scratch folder unless DATABASE_URL says otherwise.
_scratch = tempfile.mkdtemp(prefix="apps-tests-")
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{_scratch}/db.sqlite3"
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # A file, not memory: the tests' threads and processes share the test database.
    DATABASES["default"]["TEST"] = {"NAME": f"{_scratch}/test.sqlite3"}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"

# Celery as "First steps with Django" wires it, run in-process.
CELERY_TASK_ALWAYS_EAGER = True

# The tests' feed servers listen on loopback, which the fetch refuses by default.
DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = True
