"""The database and the cache the settings describe, built from their URLs and locations.

With no URL the embedded defaults serve: SQLite tuned for web, worker and beat
sharing one file, and Django's DatabaseCache, which holds locks across processes.
"""

import dj_database_url


def database(url, conn_max_age, test_folder):
    """Django's DATABASES["default"] for ``url``; SQLite's test database is a file in
    ``test_folder``."""
    config = dj_database_url.parse(url, conn_max_age=conn_max_age, conn_health_checks=True)
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # Web, worker and beat share one SQLite file: WAL lets readers run beside
        # the writer, IMMEDIATE takes the write lock up front (no upgrade
        # deadlocks), and the timeout waits for a busy writer instead of failing.
        config["CONN_MAX_AGE"] = 0
        config["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
        # A file, not memory, so that worker subprocesses in tests see the test data.
        config["TEST"] = {"NAME": str(test_folder / "test-db.sqlite3")}
    elif config["ENGINE"] == "django.db.backends.mysql":
        # MariaDB/MySQL: 4-byte UTF-8 (emoji in titles), unless the URL asks
        # otherwise (?charset=...); the test database is created the same way,
        # in the server's default collation for it (case-insensitive, as the
        # admin's search expects on MySQL).
        config["OPTIONS"] = {"charset": "utf8mb4", **config.get("OPTIONS", {})}
        config["TEST"] = {"CHARSET": "utf8mb4"}
    return config


def caches(memcached_location, memcached_options):
    """Django's CACHES: memcached at the comma-separated locations, else the database."""
    if memcached_location:
        default = {
            "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
            "LOCATION": memcached_location.split(","),
            "OPTIONS": memcached_options,
        }
    else:
        # DatabaseCache.add() is atomic through the table's primary key, so locks
        # hold across processes even without memcached.
        default = {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "django_cache",
        }
    return {"default": default}
