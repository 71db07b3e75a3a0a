"""Politeness towards the hosts feeds live on: few fetches at once, their Retry-After.

- ``HostVisit``: an import's one entry here. It asks the host's deferral, takes
  a slot for the fetch, and heeds the host's answer.
- Slots: at most ``DJANGOFEEDS_MAX_PER_HOST`` imports of one host's feeds run at
  once, across every worker: the host's ``CacheSemaphore``. Slot ``i`` of a host
  is a ``CacheLock`` on ``djangofeeds-host-<md5(host)>-<i>`` in the lock cache:
  an atomic add with an expiry, released only by its owner, renewed while the
  import runs. A killed worker's slot comes back when its lease (``SLOT_LEASE``
  at most) runs out.
- Deferral: a 429 or 503 with ``Retry-After`` defers every feed of the host
  until then: the time is kept in the lock cache (the task asks before it
  fetches) and written as ``next_check_at`` on the host's idle feeds (so the
  scheduler does not even queue them).

A feed's host is its URL's host name (the port is not part of it: two ports
of one machine share its capacity). Redirects are not followed here: a feed
redirected to another host counts against its own URL's host.
"""

import contextlib
import logging
import random
from datetime import timedelta
from hashlib import md5
from urllib.parse import urlsplit

from django.core.cache import caches
from django.db.models import Q
from django.utils import timezone

from djangofeeds import conf
from djangofeeds.locking.locks import CacheSemaphore, release_together
from djangofeeds.models import Feed

logger = logging.getLogger(__name__)

# A slot's lease, renewed while its import runs: short, so that a killed
# worker's slot is free again within a minute rather than after the feed
# lock's ten.
SLOT_LEASE = 60
# A feed that found its host busy is offered again after about WAIT_BASE
# seconds, doubling with each wait up to WAIT_CAP, jittered so that the
# waiting feeds do not all come back at the same moment.
WAIT_BASE = 0.5
WAIT_CAP = 10.0
# HostVisit's ``not_before`` when the caller has not read the host's deferral.
NOT_READ = object()
# The answers whose Retry-After speaks for the whole host, not one feed.
HOST_WIDE = {429, 503}


class HostBusy(Exception):
    """Every slot of the feed's host is taken: the feed waits, without a worker."""

    def __init__(self, host):
        super().__init__(
            f"{host} already has {conf.DJANGOFEEDS_MAX_PER_HOST} imports running "
            "(DJANGOFEEDS_MAX_PER_HOST)"
        )
        self.host = host


class HostDeferred(Exception):
    """The feed's host asked to wait (Retry-After): nothing is fetched there before ``until``."""

    def __init__(self, host, until):
        when = until.isoformat(timespec="seconds")
        super().__init__(f"{host} asked to wait until {when} (Retry-After)")
        self.until = until


def host_of(url):
    """The host name of ``url``, lower case ("" if it has none)."""
    return urlsplit(url).hostname or ""


def host_key(host, suffix=None):
    """The lock cache's key of ``host`` (its slots add ``-<i>``), or of its ``suffix``."""
    key = f"djangofeeds-host-{md5(host.encode()).hexdigest()}"
    return key if suffix is None else f"{key}-{suffix}"


def host_slots(url, *, lease=None):
    """The slots of ``url``'s host, not taken yet: ``DJANGOFEEDS_MAX_PER_HOST`` leases."""
    key, size = host_key(host_of(url)), conf.DJANGOFEEDS_MAX_PER_HOST
    lease = lease or min(SLOT_LEASE, conf.DJANGOFEEDS_LOCK_EXPIRE)
    return CacheSemaphore(key, size, expire=lease, using=conf.DJANGOFEEDS_LOCK_CACHE)


class HostVisit:
    """An import's visit to its feed's host, as the host allows: ``with HostVisit(url) as visit``.

    Entering asks the host's Retry-After (``HostDeferred`` while it runs) and
    takes one of its slots (``HostBusy`` when none is free, ``LockUnavailable``
    when the lock cache cannot be reached), renewed while the block runs.
    Leaving gives the slot back, then heeds what the host ``answered``.
    ``not_before`` is the host's Retry-After when the caller read it already
    (``deferral_key``, in the round trip of its own lock), and ``slot`` one
    of the host's slots it took there (``CacheSemaphore.lease_at``): entering
    holds that one rather than asking for another. Until then, that slot is
    the caller's to give back.
    """

    def __init__(self, url, not_before=NOT_READ, slot=None):
        self.url = url
        self.host = host_of(url)
        self.slots = host_slots(url)
        self.not_before = not_before
        self.slot = slot
        self.answer = None  # (HTTP status, Retry-After seconds), once the host answered
        self._renewal = contextlib.ExitStack()

    def __enter__(self):
        return self.enter()

    def enter(self):
        """Ask the host's Retry-After and take a slot (see the class); the visit."""
        if self.not_before is NOT_READ:
            until = deferred_until(self.url)
        else:
            until = still_ahead(self.not_before)
        if until:
            raise HostDeferred(self.host, until)
        if self.slot is not None:
            self.slots.adopt(self.slot)
        elif not self.slots.acquire():
            raise HostBusy(self.host)
        try:
            self._renewal.enter_context(self.slots.keep_alive())
        except BaseException:
            self.slots.release()
            raise
        return self

    def __exit__(self, *exc_info):
        self.leave()

    def leave(self, *with_locks):
        """Give the slot back, with ``with_locks`` in the same round trip; heed the answer."""
        release_together([*self.give_up(), *with_locks])
        self.heed_answer()

    def give_up(self):
        """Stop renewing the slot and hand its lease over, to be released with others.

        ``[lease]``, or ``[]`` when none is held (``leave`` or ``give_up`` took it already).
        """
        self._renewal.close()
        lease = self.slots.detach()
        return [] if lease is None else [lease]

    def heed_answer(self):
        """Heed what the host answered (``answered``), once the slot is given back."""
        answer, self.answer = self.answer, None
        if answer:
            heed(self.url, *answer)

    def answered(self, status, retry_after):
        """What the host answered the fetch: heeded as the visit ends."""
        self.answer = (status, retry_after)


def busy_wait(waits):
    """Seconds a feed waits after finding its host busy ``waits`` times before."""
    return min(WAIT_CAP, WAIT_BASE * 2 ** min(waits, 10)) * random.uniform(0.5, 1.5)


def deferral_key(url):
    """The lock cache's key of the time before which ``url``'s host asked not to be fetched."""
    return host_key(host_of(url), "not-before")


def deferred_until(url, now=None):
    """The time before which ``url``'s host asked not to be fetched, or None."""
    return still_ahead(caches[conf.DJANGOFEEDS_LOCK_CACHE].get(deferral_key(url)), now)


def still_ahead(until, now=None):
    """``until`` (a deferral read from the lock cache) if it is still ahead, else None."""
    return until if until and until > (now or timezone.now()) else None


def heed(url, status, retry_after, now=None):
    """After an answer: a host-wide ``Retry-After`` defers all the host's feeds; return until when.

    Returns None when the answer asks nothing of the host.
    """
    if status not in HOST_WIDE or not retry_after:
        return None
    return defer_host(url, retry_after, now=now)


def defer_host(url, seconds, *, now=None):
    """Fetch nothing from ``url``'s host for ``seconds``: in the cache and on its idle feeds."""
    now = now or timezone.now()
    host, until = host_of(url), now + timedelta(seconds=seconds)
    # Claimed feeds keep their claim's deadline: their task asks the cache.
    moved = (
        Feed.objects.filter(of_host(host), is_active=True, claimed_at__isnull=True)
        .filter(Q(next_check_at__isnull=True) | Q(next_check_at__lt=until))
        .update(next_check_at=until)
    )
    cache, key = caches[conf.DJANGOFEEDS_LOCK_CACHE], deferral_key(url)
    try:
        if (cache.get(key) or now) < until:
            cache.set(key, until, timeout=int(seconds) + 1)
    except Exception as exc:  # whatever the cache backend raises: the import is recorded already
        logger.warning("Host %s: could not store its Retry-After in the cache (%s)", host, exc)
    logger.warning(
        "Host %s asked to wait %ss (Retry-After): its feeds are not fetched before %s "
        "(%d rescheduled)",
        host,
        seconds,
        until.isoformat(timespec="seconds"),
        moved,
    )
    return until


def of_host(host):
    """A filter for the feeds whose URL is on ``host`` (a scan of the URLs: rare, after a 429)."""
    literal = f"[{host}]" if ":" in host else host  # an IPv6 address is bracketed in URLs
    found = Q()
    for scheme in ("http", "https"):
        base = f"{scheme}://{literal}"
        found |= Q(url__iexact=base)
        for after in "/:?#":
            found |= Q(url__istartswith=base + after)
    return found
