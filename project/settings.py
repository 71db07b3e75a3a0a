"""Settings for the project, read from the environment (see docs/configuration.md).

With no environment at all the project runs on embedded defaults: SQLite, a
filesystem Celery broker under ``var/``, Django's DatabaseCache for locks and the
local spam rules. What holds logic lives beside it: env.py (reading and checking
variables), backends.py (database and cache), broker.py (broker options).
Every variable below is listed in docs/configuration.md's table; a test keeps the two in step.

One module, longer than the others on purpose: the site has one env-driven
settings file, and what makes it long is each setting's reason, not code.
"""

from datetime import timedelta
from importlib.util import find_spec
from pathlib import Path

import django
from kombu import Exchange, Queue

from project import backends, broker, localenv
from project.env import DEV_SECRET_KEY as DEV_SECRET_KEY  # a setting name, kept
from project.env import (
    env_bool,
    env_int,
    env_list,
    env_networks,
    env_str,
    refuse_trust_x_forwarded_for,
    secret_key,
)

BASE_DIR = Path(__file__).resolve().parent.parent

# The checkout's .env.local (make run writes it), so that manage.py and celery
# in any terminal run on the stack's configuration; exported variables win.
ENV_FILE = localenv.load()

# Scratch space for the embedded defaults: the filesystem broker and SQLite's
# test database. Tests point it at a private temporary folder.
VAR_DIR = Path(env_str("DJANGO_VAR_DIR", str(BASE_DIR / "var")))

# --- Core -------------------------------------------------------------------

DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = secret_key(DEBUG)  # the development key only with DEBUG on
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_celery_results",
    "axes",
    "djangofeeds",
    "blog",
]
# Schedules edited in the admin, where django-celery-beat is installed. It is not
# on Django 6.1 (2.9.0 requires Django < 6.1): there beat reads CELERY_BEAT_SCHEDULE.
BEAT_IN_DATABASE = find_spec("django_celery_beat") is not None
if BEAT_IN_DATABASE:
    INSTALLED_APPS.insert(INSTALLED_APPS.index("axes"), "django_celery_beat")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "project.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "project.urls"
WSGI_APPLICATION = "project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "project" / "templates"],
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

# --- Database ---------------------------------------------------------------

DATABASES = {
    "default": backends.database(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DJANGO_CONN_MAX_AGE", 60),
        test_folder=VAR_DIR,
    )
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache (locks live here) ------------------------------------------------

MEMCACHED_LOCATION = env_str("MEMCACHED_LOCATION")
MEMCACHED_OPTIONS = {
    # Fail fast: a lock or health check must not hang on a dead server.
    "connect_timeout": 1,
    "timeout": 2,
    "no_delay": True,
    # pymemcache skips a failed server for retry_timeout seconds, then, after
    # retry_attempts more failures, for dead_timeout: keep both short, so a
    # restarted memcached is used again within seconds, not a minute.
    "retry_attempts": 2,
    "retry_timeout": 1,
    "dead_timeout": 5,
}
CACHES = backends.caches(MEMCACHED_LOCATION, MEMCACHED_OPTIONS)

# --- Auth, i18n, static -----------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Login attempts are counted per client IP (the same address the comment rate
# limit uses, so X-Forwarded-For counts only from BLOG_TRUSTED_PROXIES): after
# DJANGO_LOGIN_FAILURE_LIMIT failures that IP is locked out of the admin for
# DJANGO_LOGIN_COOLOFF_MINUTES, every further failure restarting the wait.
# Attempts are rows in the database ("Access attempts" in the admin, where a
# lockout can be lifted), so they hold on any cache backend.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("DJANGO_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("DJANGO_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_CLIENT_IP_CALLABLE = "project.axes.client_ip"
AXES_RESET_ON_SUCCESS = True
# No banner on every manage.py command; failures and lockouts are still logged.
AXES_VERBOSE = False

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# The site's one stylesheet (project/ is not an app, so it is named here).
STATICFILES_DIRS = [BASE_DIR / "project" / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Compressed, not manifest: templates render even before collectstatic runs.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- Mail (the blog's notices, sent by its tasks) ----------------------------

# Django's SMTP backend on the host's mail server. With DEBUG on and no
# EMAIL_HOST, the console backend prints each mail in the worker's log instead.
_email_host = env_str("EMAIL_HOST")
_email_backend = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends."
    + ("console" if DEBUG and not _email_host else "smtp")
    + ".EmailBackend",
)
_smtp = {
    "host": _email_host or "localhost",
    "port": env_int("EMAIL_PORT", 25),
    "username": env_str("EMAIL_HOST_USER"),
    "password": env_str("EMAIL_HOST_PASSWORD"),
    "use_tls": env_bool("EMAIL_USE_TLS", False),
    # Seconds a mail server may take: a hung one fails the task, which is retried.
    "timeout": env_int("EMAIL_TIMEOUT", 10),
}
_smtp_options = _smtp if _email_backend.endswith(".smtp.EmailBackend") else {}
if django.VERSION >= (6, 1):  # MAILERS replaces the EMAIL_ settings (deprecated in 6.1)
    MAILERS = {"default": {"BACKEND": _email_backend, "OPTIONS": _smtp_options}}
else:
    EMAIL_BACKEND = _email_backend
    EMAIL_HOST, EMAIL_PORT = _smtp["host"], _smtp["port"]
    EMAIL_HOST_USER, EMAIL_HOST_PASSWORD = _smtp["username"], _smtp["password"]
    EMAIL_USE_TLS, EMAIL_TIMEOUT = _smtp["use_tls"], _smtp["timeout"]
DEFAULT_FROM_EMAIL = env_str("DJANGO_DEFAULT_FROM_EMAIL", "webmaster@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Who gets the mail of each comment held for moderation (BLOG_MODERATORS unset):
# comma-separated addresses.
MANAGERS = env_list("DJANGO_MANAGERS", "")
# Who gets the weekly feed health digest (DJANGOFEEDS_DIGEST_TO unset): comma-separated.
ADMINS = env_list("DJANGO_ADMINS", "")
# The site's address in the mails' links (unset: AKISMET_BLOG_URL).
BLOG_SITE_URL = env_str("BLOG_SITE_URL") or None

# --- HTTPS and cookies (on whenever DEBUG is off) ---------------------------

SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", not DEBUG)
# Health probes speak plain HTTP from inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 0 if DEBUG else 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", not DEBUG)
# Other sites (feed images, the links on the feed pages) never learn which page a
# reader came from; Django's default, stated so that a change is deliberate.
SECURE_REFERRER_POLICY = "same-origin"
# The site's Content-Security-Policy header (project/csp.py), on every response,
# the admin's included: no inline script or style, no plugin, no framing. The
# apps' pages add their stricter <meta> (no script at all); both are enforced.
SECURE_CSP = {
    "default-src": ["'self'"],
    "img-src": ["'self'", "https:", "http:", "data:"],
    "media-src": ["'self'", "https:", "http:"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
if env_bool("DJANGO_SECURE_PROXY_SSL_HEADER", False):
    # Only behind a proxy that sets this header itself (see docker-compose.yml).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- Logging ----------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    # No secret in any line: the akismet library's refusal quotes the key.
    "filters": {"hide_secrets": {"()": "project.redact.HideSecrets"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["hide_secrets"],
        },
    },
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
    # Django's default config gives "django" a console handler of its own;
    # letting it only propagate to root prints each line once.
    "loggers": {"django": {"handlers": [], "level": "INFO", "propagate": True}},
}

# --- Celery (read by project/celery.py through the CELERY_ namespace) -------

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://localhost/")
CELERY_BROKER_TRANSPORT_OPTIONS = {}
if CELERY_BROKER_URL.startswith("filesystem://"):
    # One folder for every process: the web publishes, workers consume
    # (project/celery.py makes the folders when the app is configured).
    BROKER_DIR = VAR_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS = broker.filesystem_options(BROKER_DIR)
# How long this process waits on the broker, in the names its transport honours
# (Redis and py-amqp differ). These are a request's: a broker that is down or
# hangs costs a request well under 2 s, and the callers keep what was not sent
# (a comment stays pending for the sweeper). Workers and beat wait longer:
# project/celery.py switches them to broker.WORKER at start. See project/broker.py.
_broker = broker.celery_settings(CELERY_BROKER_URL, broker.REQUEST, CELERY_BROKER_TRANSPORT_OPTIONS)
CELERY_BROKER_TRANSPORT_OPTIONS = _broker["broker_transport_options"]
CELERY_BROKER_CONNECTION_TIMEOUT = _broker["broker_connection_timeout"]
CELERY_TASK_PUBLISH_RETRY_POLICY = _broker["task_publish_retry_policy"]
CELERY_BROKER_HEARTBEAT = _broker["broker_heartbeat"]
# Workers, unlike requests, keep trying to reach the broker at startup.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# JSON only: a pickle message from a hostile producer is refused, not executed.
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_RESULT_ACCEPT_CONTENT = ["json"]

# Results in the database (visible in the admin), with name, args and worker:
# django-celery-results' backend, each state written by one upsert (project/results.py).
# "disabled" runs the site as a host without a result backend.
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "project.results:DatabaseBackend")
CELERY_RESULT_EXTENDED = True
# Seconds a task result is kept. djangofeeds.tasks.cleanup deletes older ones
# hourly in batches; beat's own celery.backend_cleanup (installed by the
# scheduler because this is set) sweeps what is left daily at 4:00.
CELERY_RESULT_EXPIRES = env_int("CELERY_RESULT_EXPIRES", 24 * 3600)
# "STARTED" tells an operator a long import is running, not still queued
# (import_feed writes its own once the import begins: a skip writes none).
CELERY_TASK_TRACK_STARTED = True
# Imports are long: a worker process reserves one task at a time, so a quick
# task is never stuck behind a slow one that another process could have taken.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes the database connection around every task unless
# this is set: a new PostgreSQL connection (a forked server process) per task.
# With it set, project/celery.py closes connections as Django does around a
# request instead: when older than CONN_MAX_AGE or found unusable.
CELERY_DB_REUSE_MAX = 1000

CELERY_TASK_DEFAULT_QUEUE = "celery"
# Each queue has its own exchange and routing key. A bare Queue(name) is bound
# to exchange "celery" with key "celery": Celery's router sidesteps that (it
# publishes by queue name), but a message sent with exchange="celery" would be
# copied into all four queues.
CELERY_TASK_QUEUES = [
    Queue(name, Exchange(name), routing_key=name)
    for name in ("celery", "feeds", "spam", "hipri", "scheduler")
]
# Feed imports and spam checks get their own queues, consumed by separate
# worker services in docker-compose.yml (worker-feeds, worker), so a burst of
# one never delays the other; "hipri" is for work a person is waiting on. The
# refresh tick has a queue of its own: it must never wait behind the imports it queued.
CELERY_TASK_ROUTES = {
    "djangofeeds.tasks.refresh_feeds": {"queue": "scheduler"},
    "djangofeeds.*": {"queue": "feeds"},
    "blog.*": {"queue": "spam"},
}

if BEAT_IN_DATABASE:
    # The entries live in the database (manage.py setup_schedules writes them).
    CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
else:
    # Beat's own file scheduler, fed the apps' entries as data.
    from blog.schedules import BEAT_SCHEDULE as BLOG_SCHEDULE
    from djangofeeds.schedules import BEAT_SCHEDULE as FEEDS_SCHEDULE

    CELERY_BEAT_SCHEDULE = {**FEEDS_SCHEDULE, **BLOG_SCHEDULE}
    CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_TIMEZONE = TIME_ZONE

# --- The apps' own settings -------------------------------------------------

AKISMET_API_KEY = env_str("AKISMET_API_KEY")
AKISMET_BLOG_URL = env_str("AKISMET_BLOG_URL", "http://localhost:8000/")
AKISMET_API_URL = env_str("AKISMET_API_URL", "https://rest.akismet.com")

# --- blog -------------------------------------------------------------------

# Comment POSTs accepted per visitor IP and minute (0: no limit).
BLOG_COMMENTS_PER_MINUTE = env_int("BLOG_COMMENTS_PER_MINUTE", 5)
# Behind a proxy REMOTE_ADDR is the proxy: a request from one of these addresses
# (IPs or CIDR networks) has its visitor's IP read from X-Forwarded-For, the
# right-most entry that is not a trusted proxy. From anyone else the header is
# ignored: a client that reaches web directly cannot choose its own IP.
BLOG_TRUSTED_PROXIES = env_networks("BLOG_TRUSTED_PROXIES")
refuse_trust_x_forwarded_for()
# Seconds one Akismet request may take; the visitor never waits for it.
BLOG_AKISMET_TIMEOUT = 5
# A worker that found the key invalid asks again only after this many seconds
# (a renewed subscription heals without a restart, and no request storm).
BLOG_AKISMET_KEY_RETRY_AFTER = 300
# spam_filter retries network errors and 5xx after about 30 s, 60 s, 120 s...
# (full jitter, capped), then leaves the comment pending for the sweeper.
BLOG_SPAM_RETRY_BACKOFF = 30
BLOG_SPAM_RETRY_BACKOFF_MAX = 600
BLOG_SPAM_MAX_RETRIES = 5
# The sweeper re-dispatches comments still pending this long after their last
# dispatch (longer than the retries above take).
BLOG_SPAM_RECHECK_AFTER_MINUTES = 30
# Spam older than this is deleted by purge_spam (WordPress keeps 15 days too).
BLOG_SPAM_PURGE_AFTER_DAYS = 15
# Akismet's "discard" (blatant spam): deleted at once, without a moderation entry,
# and counted in the admin (False: kept as spam flagged blatant until the purge).
BLOG_SPAM_DELETE_BLATANT = True
# The local rules, used when AKISMET_API_KEY is unset.
BLOG_SPAM_MAX_LINKS = 3
BLOG_SPAM_BLOCKED_WORDS = ["viagra", "cialis", "casino", "payday loan", "crypto giveaway"]

DJANGOFEEDS_LOCK_EXPIRE = env_int("DJANGOFEEDS_LOCK_EXPIRE", 600)
DJANGOFEEDS_FETCH_TIMEOUT = env_int("DJANGOFEEDS_FETCH_TIMEOUT", 10)
DJANGOFEEDS_MAX_BYTES = env_int("DJANGOFEEDS_MAX_BYTES", 10 * 1024 * 1024)
DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = env_bool("DJANGOFEEDS_ALLOW_PRIVATE_HOSTS", False)
# WebSub push: the base URL at which hubs reach this site; empty, every feed is polled.
DJANGOFEEDS_PUBLIC_URL = env_str("DJANGOFEEDS_PUBLIC_URL") or None
# WebSub publishing: hubs the output feeds name and imports ping (with the public URL).
DJANGOFEEDS_PUBLISH_HUBS = env_list("DJANGOFEEDS_PUBLISH_HUBS", "")
DJANGOFEEDS_PUBLISH_ITEMS = env_int("DJANGOFEEDS_PUBLISH_ITEMS", 50)
# Feed health: failures in a row (over a week) that make a feed dead, identical
# permanent redirects in a row (over a day) that move it, and who gets the weekly
# digest of changes (comma-separated addresses; unset: DJANGO_ADMINS).
DJANGOFEEDS_DEAD_AFTER = env_int("DJANGOFEEDS_DEAD_AFTER", 10)
DJANGOFEEDS_MOVE_AFTER = env_int("DJANGOFEEDS_MOVE_AFTER", 3)
DJANGOFEEDS_DIGEST_TO = env_list("DJANGOFEEDS_DIGEST_TO", "") or None
# Seconds between two imports of a healthy feed (the server's Cache-Control,
# Retry-After and RSS <ttl> may push the next one later, never earlier).
DJANGOFEEDS_REFRESH_INTERVAL = env_int("DJANGOFEEDS_REFRESH_INTERVAL", 1800)
# Adaptive polling: a feed whose entries carry dates is checked about once per
# gap between its recent entries, never more often than the minimum and never
# less often than the maximum (seconds). Undated feeds use the interval above.
DJANGOFEEDS_MIN_POLL_INTERVAL = env_int("DJANGOFEEDS_MIN_POLL_INTERVAL", 900)
DJANGOFEEDS_MAX_POLL_INTERVAL = env_int("DJANGOFEEDS_MAX_POLL_INTERVAL", 86400)
# The refresh tick (every 5 seconds) claims due feeds in the database, at most
# this many per tick: batch / 5 s is the most feeds per second the scheduler
# can queue (1,000/s by default); raise it when more workers would idle...
DJANGOFEEDS_TICK_BATCH = env_int("DJANGOFEEDS_TICK_BATCH", 5000)
# ...and only while fewer than this many claimed feeds are still unfinished
# (queued or running): the backlog in the broker never grows past it.
DJANGOFEEDS_QUEUE_DEPTH = env_int("DJANGOFEEDS_QUEUE_DEPTH", 10000)
# Scheduled feeds per message: 1 sends one import_feed per feed; more send
# import_feed_batch messages, each importing its feeds in turn, which pays
# Celery's work per message (receive, acknowledge, trace) once for several.
DJANGOFEEDS_FEEDS_PER_MESSAGE = env_int("DJANGOFEEDS_FEEDS_PER_MESSAGE", 1)
# A claim not finished after this many seconds (a lost message, a killed
# worker) is due again. Longer than an import may run (the lock's expiry)
# plus the time a full queue takes to drain.
DJANGOFEEDS_CLAIM_TIMEOUT = env_int("DJANGOFEEDS_CLAIM_TIMEOUT", 900)
# The cache alias that holds import locks: it must be shared by all workers.
DJANGOFEEDS_LOCK_CACHE = "default"
# Posts kept per feed, newest first: pruned after an import that passes it and
# by the hourly cleanup (djangofeeds.tasks.cleanup). 0: no bound.
DJANGOFEEDS_KEEP_POSTS = env_int("DJANGOFEEDS_KEEP_POSTS", 1000)
# Import runs are kept this many days, and the last DJANGOFEEDS_KEEP_RUNS_PER_FEED
# of each feed whatever their age (a feed's page always shows its history).
DJANGOFEEDS_KEEP_RUNS_DAYS = env_int("DJANGOFEEDS_KEEP_RUNS_DAYS", 14)
DJANGOFEEDS_KEEP_RUNS_PER_FEED = env_int("DJANGOFEEDS_KEEP_RUNS_PER_FEED", 10)
# Politeness: imports of one host's feeds running at once across all workers,
# and a contact (URL or address) in the User-Agent for the publishers.
DJANGOFEEDS_MAX_PER_HOST = env_int("DJANGOFEEDS_MAX_PER_HOST", 2)
DJANGOFEEDS_USER_AGENT_CONTACT = env_str("DJANGOFEEDS_USER_AGENT_CONTACT") or None
# OPML rows opml_import checks at once (each host still at most DJANGOFEEDS_MAX_PER_HOST).
DJANGOFEEDS_OPML_CONCURRENCY = env_int("DJANGOFEEDS_OPML_CONCURRENCY", 10)
