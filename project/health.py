"""``GET /healthz``: does each part the site depends on answer right now?"""

import logging
import secrets
import time

from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from blog import spam
from project.broker import check_broker

logger = logging.getLogger(__name__)


class CheckFailed(Exception):
    """A part answered, but not as it should."""


class NotInUse(Exception):
    """The part is not used with this configuration: the check is left out of the answer."""


class SpamServiceMisconfigured(CheckFailed):
    """A worker found the spam service refusing the configuration (Akismet: key or blog URL)."""


def check_database():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        if cursor.fetchone() != (1,):
            raise CheckFailed("SELECT 1 did not return 1")


def check_cache():
    # A round trip with a fresh value: pymemcache's HashClient answers a dead
    # server with defaults (False, None) instead of raising, so only reading
    # back what was written proves the cache works.
    key, value = f"healthz:{secrets.token_hex(8)}", secrets.token_hex(8)
    cache.set(key, value, timeout=10)
    try:
        if cache.get(key) != value:
            raise CheckFailed("value written was not read back")
    finally:
        cache.delete(key)


def check_spam():
    # Reads what workers recorded (the backend's is_misconfigured): asking Akismet
    # on every probe would spend the site's API quota on health checks.
    backend = spam.get_backend()
    if not backend.remote:
        raise NotInUse
    if backend.is_misconfigured():
        raise SpamServiceMisconfigured(f"{backend.name} refused the configuration")


CHECKS = {
    "database": check_database,
    "cache": check_cache,
    "broker": check_broker,
    "spam": check_spam,
}
# Without these the site still works (comments wait, pending): reported as
# "degraded" with a 200, so a lapsed Akismet subscription does not take the
# web container out of rotation.
DEGRADED_ONLY = {"spam"}


def run_checks():
    """Run every check; return ``{name: {"ok", "ms"[, "error"]}}``."""
    results = {}
    for name, check in CHECKS.items():
        started = time.perf_counter()
        try:
            check()
        except NotInUse:
            continue
        except Exception as exc:
            # The log has the details; the public answer names only the kind
            # of error, never hosts, URLs or credentials.
            logger.warning("health check %s failed: %r", name, exc)
            results[name] = {"ok": False, "error": type(exc).__name__}
        else:
            results[name] = {"ok": True}
        results[name]["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return results


@never_cache
def healthz(request):
    checks = run_checks()
    failed = [name for name, result in checks.items() if not result["ok"]]
    down = [name for name in failed if name not in DEGRADED_ONLY]
    status = "fail" if down else ("degraded" if failed else "ok")
    body = {"status": status, "failed": failed, "checks": checks}
    return JsonResponse(body, status=503 if down else 200)
