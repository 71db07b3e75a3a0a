"""Benchmark settings: the project's own, production-like, on a database of the bench's own.

The database comes from ``BENCH_DATABASE_URL`` (a PostgreSQL database whose name
contains "bench", dropped and created anew by each benchmark), never from
``DATABASE_URL``: a developer's data is never touched. Memcached and the Redis
broker are private servers the benchmark starts; it passes them on through
``MEMCACHED_LOCATION`` and ``CELERY_BROKER_URL``.
"""

import os
import tempfile

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/djangofeeds_bench"

os.environ["DJANGO_ENV_FILE"] = ""  # never a make run's .env.local
os.environ["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL") or DEFAULT_DATABASE_URL
if not os.environ.get("DJANGO_VAR_DIR"):
    os.environ["DJANGO_VAR_DIR"] = tempfile.mkdtemp(prefix="project-bench-")
# Production mode (DEBUG off: no query log growing in long runs), over plain HTTP.
os.environ["DJANGO_DEBUG"] = "0"
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-" + "x" * 40)
os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "0"
os.environ["DJANGO_SECURE_HSTS_SECONDS"] = "0"
os.environ["DJANGOFEEDS_ALLOW_PRIVATE_HOSTS"] = "1"  # the feed server is on loopback
os.environ["BLOG_COMMENTS_PER_MINUTE"] = "0"  # 500 POSTs from one IP are the point
os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")

from project.settings import *  # noqa: E402, F403

# The bench's HTTP client talks plain HTTP to gunicorn: cookies must not be Secure.
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
# A diagnostic for issue 24 (bench/profile_skip.py): the contention benchmark's
# workers without the STARTED state, to measure what it costs a skipped task.
if os.environ.get("BENCH_TASK_TRACK_STARTED") == "0":
    CELERY_TASK_TRACK_STARTED = False
