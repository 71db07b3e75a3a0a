"""The system checks: bad settings and a process-local lock cache are reported at start-up."""

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from djangofeeds import conf
from djangofeeds.checks import check_lock_cache, check_settings
from djangofeeds.locking.backends.base import GenericCache
from djangofeeds.locking.locks import CacheLock

pytestmark = pytest.mark.django_db

KEY = "djangofeeds.tasks.import_feed-lock-0123456789abcdef0123456789abcdef"


def test_lock_on_a_process_local_cache_falls_back_and_the_check_warns(settings):
    """On a process-local cache the lock still works and the system check warns."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    lock = CacheLock(KEY, expire=30)

    assert isinstance(lock._backend, GenericCache)
    assert lock.acquire() and not CacheLock(KEY, expire=30).acquire() and lock.release()
    assert [warning.id for warning in check_lock_cache(None)] == ["djangofeeds.W001"]


def test_lock_check_is_quiet_for_shared_caches(lock_cache):
    """The system check says nothing when the lock's cache is shared."""
    assert check_lock_cache(None) == []


def test_lock_check_hint_names_django_caches_setting(settings):
    """The warning's hint names Django's CACHES setting, not this project's variables."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    [warning] = check_lock_cache(None)
    assert "CACHES['default']" in warning.hint and "MEMCACHED_LOCATION" not in warning.hint


def readme_caches():
    """Each ``CACHES = {...}`` the README's "A cache for the locks" gives to copy."""
    readme = (Path(django_settings.BASE_DIR) / "README.md").read_text()
    section = readme.split("**A cache for the locks.**", 1)[1].split("```python", 1)[1]
    block = section.split("```", 1)[0]
    return [
        ast.literal_eval(value) for value in re.findall(r"^CACHES = (\{.*?^\})", block, re.M | re.S)
    ]


def test_readme_gives_a_lock_cache_of_each_kind_the_check_accepts(settings):
    """The README's CACHES blocks (memcached, Redis, the database) each silence W001, and
    the warning's hint sends a host to that section by its name."""
    blocks = readme_caches()
    backends = [block["default"]["BACKEND"].rsplit(".", 1)[1] for block in blocks]
    assert backends == ["PyMemcacheCache", "RedisCache", "DatabaseCache"]
    for block in blocks:
        settings.CACHES = block
        assert check_lock_cache(None) == [], block
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    [warning] = check_lock_cache(None)
    assert '"A cache for the locks"' in warning.hint and "README" in warning.hint


def test_lock_check_refuses_a_lock_cache_that_does_not_exist(settings):
    """A lock cache alias missing from CACHES is an error naming the aliases there are."""
    settings.DJANGOFEEDS_LOCK_CACHE = "locks"
    [error] = check_lock_cache(None)
    assert error.id == "djangofeeds.E004" and "default" in error.hint


@pytest.mark.parametrize("value", ["600", -1, 0, 2.5, True, None])
def test_settings_check_refuses_a_lock_expiry_that_is_not_a_positive_whole_number(settings, value):
    """A lock expiry that is a string, negative, zero, a float or a bool is djangofeeds.E001."""
    settings.DJANGOFEEDS_LOCK_EXPIRE = value
    assert [error.id for error in check_settings(None)] == ["djangofeeds.E001"]


def test_settings_check_refuses_a_lock_expiry_below_the_fetch_deadline(settings):
    """A lock lease shorter than one fetch may take is djangofeeds.E003, with both numbers."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 10
    settings.DJANGOFEEDS_LOCK_EXPIRE = 30  # stopped at 24 s; a fetch may take 30 s
    [error] = check_settings(None)
    assert error.id == "djangofeeds.E003" and "24s" in error.msg and "30s" in error.msg
    settings.DJANGOFEEDS_LOCK_EXPIRE = 60
    assert check_settings(None) == []
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 1
    settings.DJANGOFEEDS_LOCK_EXPIRE = 5  # stopped 2 s before 4.5 s, not at 80% (4 s)
    [error] = check_settings(None)
    assert error.id == "djangofeeds.E003" and "2.5s" in error.msg and "3s" in error.msg


def test_settings_check_refuses_poll_bounds_the_wrong_way_round(settings):
    """A minimum poll interval above the maximum is djangofeeds.E002."""
    settings.DJANGOFEEDS_MIN_POLL_INTERVAL = 7200
    settings.DJANGOFEEDS_MAX_POLL_INTERVAL = 3600
    assert [error.id for error in check_settings(None)] == ["djangofeeds.E002"]


def test_settings_check_passes_on_every_default(settings):
    """With none of the app's settings set, every check passes: the defaults are consistent."""
    for name in conf.DEFAULTS:
        if hasattr(settings, name):
            delattr(settings, name)
    assert check_settings(None) == []
    assert conf.DEFAULTS["DJANGOFEEDS_LOCK_EXPIRE"] == conf.DJANGOFEEDS_LOCK_EXPIRE


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DJANGOFEEDS_MAX_PER_HOST", 0),
        ("DJANGOFEEDS_MAX_PER_HOST", "2"),
        ("DJANGOFEEDS_OPML_CONCURRENCY", 0),
        ("DJANGOFEEDS_USER_AGENT_CONTACT", "https://example.org/\r\nX-Evil: 1"),
        ("DJANGOFEEDS_USER_AGENT_CONTACT", 42),
    ],
)
def test_settings_check_refuses_bad_politeness_settings(settings, name, value):
    """A per-host limit or an OPML concurrency below 1 (or not a number), or a contact that is
    not one line: E001."""
    setattr(settings, name, value)
    errors = check_settings(None)
    assert [error.id for error in errors] == ["djangofeeds.E001"] and name in errors[0].msg


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DJANGOFEEDS_DEAD_AFTER", 0),
        ("DJANGOFEEDS_MOVE_AFTER", "3"),
        ("DJANGOFEEDS_DIGEST_TO", "ops@example.org"),  # a string, not a list of them
        ("DJANGOFEEDS_DIGEST_TO", ["not an address"]),
    ],
)
def test_settings_check_refuses_bad_health_settings(settings, name, value):
    """Health counts below 1, digest recipients that are not a list of addresses: E001."""
    setattr(settings, name, value)
    errors = check_settings(None)
    assert [error.id for error in errors] == ["djangofeeds.E001"] and name in errors[0].msg
