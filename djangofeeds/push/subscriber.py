"""WebSub (W3C), the subscriber's part: discover a feed's hub, subscribe, verify, check pushes.

No Celery here (djangofeeds.tasks calls these). Push is on only when
``DJANGOFEEDS_PUBLIC_URL`` says where hubs reach this site. The hub is asked
through the same rules as a feed fetch (``djangofeeds.fetching.addresses``: no private
addresses; ``djangofeeds.fetching.transport``: one deadline; see ``protocol.post_form``),
so a feed cannot make the worker POST to an internal service.
"""

import logging
from datetime import timedelta
from functools import partial

from celery import current_app
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from djangofeeds import conf
from djangofeeds.conf import public_url
from djangofeeds.locking.fence import write_fenced
from djangofeeds.models import Feed, Subscription, new_callback_token, new_secret
from djangofeeds.push.protocol import HubError, discover, post_form
from djangofeeds_blog_shared.query import ASCII_NUMBER

logger = logging.getLogger(__name__)

# Sent by name, as djangofeeds.importing.dispatch sends imports: tasks are not imported here.
SUBSCRIBE_FEED = "djangofeeds.tasks.subscribe_feed"
State = Subscription.State

# Leases ending within this are renewed (twice the beat's interval and more).
RENEW_AHEAD = timedelta(hours=12)
# A subscription the hub never verified is asked again after this.
PENDING_RETRY = timedelta(hours=1)
# A lease a hub grants is believed up to a year (a larger one would be a mistake).
MAX_LEASE_SECONDS = 365 * 24 * 3600


def enabled():
    """Whether push is on: hubs can reach this site."""
    return bool(conf.DJANGOFEEDS_PUBLIC_URL)


def callback_url(subscription):
    """The URL the hub verifies and pushes to: the public base and the app's mount."""
    path = reverse("djangofeeds:websub_callback", kwargs={"token": subscription.token})
    return public_url(path)


def found_hub(feed, headers, body, url, *, current=None):
    """After an import: the id of a subscription to request now, or None when none is needed.

    A feed whose hub and topic are already subscribed (pending or active)
    needs nothing; otherwise its subscription gets a new callback and secret.
    """
    if not enabled() or not feed.is_active:
        return None
    links = discover(headers, body, url)
    if not links.hubs:
        return None
    hub, topic = links.hubs[0], links.topic or url
    if current is None:
        current = Subscription.objects.filter(feed=feed).first()
    same = current and (current.hub, current.topic) == (hub, topic)
    if same and current.state in (State.PENDING, State.ACTIVE, State.DENIED):
        return None  # denied: not asked again until the hub or topic changes
    fresh = {"hub": hub, "topic": topic, "token": new_callback_token(), "secret": new_secret()}
    with transaction.atomic():
        if current:
            Subscription.objects.filter(pk=current.pk).update(
                state=State.PENDING, lease_expires_at=None, missed_at=None, last_error="", **fresh
            )
            return current.pk
        return Subscription.objects.create(feed=feed, **fresh).pk


def request(subscription, mode):
    """POST ``hub.mode`` (subscribe or unsubscribe) for ``subscription`` to its hub.

    Records the request; raises ``HubError`` (recorded too) when the hub
    cannot be reached or refuses. The hub then verifies with a GET.
    """
    data = {
        "hub.callback": callback_url(subscription),
        "hub.mode": mode,
        "hub.topic": subscription.topic,
    }
    if mode == "subscribe":
        data["hub.lease_seconds"] = str(conf.DJANGOFEEDS_WEBSUB_LEASE_SECONDS)
        data["hub.secret"] = subscription.secret
    now = timezone.now()
    try:
        post_form(subscription.hub, data)
    except HubError as exc:
        Subscription.objects.filter(pk=subscription.pk).update(
            requested_at=now, last_error=f"{mode}: {exc}"
        )
        raise
    Subscription.objects.filter(pk=subscription.pk).update(requested_at=now, last_error="")


def verify(token, params):
    """The answer ``(status, body)`` to the hub's GET on a callback (verification of intent)."""
    mode, topic = params.get("hub.mode", ""), params.get("hub.topic", "")
    subscription = Subscription.objects.filter(token=token, topic=topic).first()
    if subscription is None:
        return 404, ""
    if mode == "denied":
        Subscription.objects.filter(pk=subscription.pk).update(
            state=State.DENIED, last_error=f"denied: {params.get('hub.reason', '')}"[:1000]
        )
        logger.warning("hub %s denied the subscription to %s", subscription.hub, topic)
        return 200, ""
    challenge = params.get("hub.challenge", "")
    if mode == "subscribe" and subscription.state in (State.PENDING, State.ACTIVE) and challenge:
        seconds = params.get("hub.lease_seconds", "")
        # ASCII digits only: "²" passes str.isdigit, then int() refuses it.
        lease = int(seconds) if ASCII_NUMBER.fullmatch(seconds) and len(seconds) < 10 else None
        lease = min(lease or conf.DJANGOFEEDS_WEBSUB_LEASE_SECONDS, MAX_LEASE_SECONDS)
        Subscription.objects.filter(pk=subscription.pk).update(
            state=State.ACTIVE, lease_expires_at=timezone.now() + timedelta(seconds=lease)
        )
        return 200, challenge
    if mode == "unsubscribe" and subscription.state == State.UNSUBSCRIBED and challenge:
        return 200, challenge
    return 404, ""


def unsubscribe(subscription):
    """Mark ``subscription`` unsubscribed (its verification is then answered); tell the hub."""
    Subscription.objects.filter(pk=subscription.pk).update(
        state=State.UNSUBSCRIBED, lease_expires_at=None
    )
    subscription.state = State.UNSUBSCRIBED
    request(subscription, "unsubscribe")


def lapse(now=None):
    """Leases that ended: pending again (renewal asks anew) and their feeds polled now.

    Their pushes have stopped: the slow pace a push set must not hold. Returns
    the subscriptions' ids, to subscribe again.
    """
    now = now or timezone.now()
    ended = Subscription.objects.filter(state=State.ACTIVE, lease_expires_at__lte=now)
    ids = list(ended.values_list("pk", flat=True))
    if ids:
        Subscription.objects.filter(pk__in=ids).update(state=State.PENDING)
        Feed.objects.filter(
            subscription__in=ids, is_active=True, claimed_at__isnull=True, next_check_at__gt=now
        ).update(next_check_at=now)
    return ids


def to_unsubscribe():
    """Subscriptions whose feed was deleted or deactivated, the hub not yet told."""
    live = [State.PENDING, State.ACTIVE]
    return Subscription.objects.filter(state__in=live).exclude(feed__is_active=True)


def to_renew(now=None):
    """Active subscriptions whose lease ends soon, and pending ones the hub never verified."""
    now = now or timezone.now()
    return Subscription.objects.filter(feed__is_active=True).filter(
        Q(state=State.ACTIVE, lease_expires_at__lte=now + RENEW_AHEAD)
        | Q(state=State.PENDING, requested_at__lte=now - PENDING_RETRY)
        | Q(state=State.PENDING, requested_at__isnull=True, created_at__lte=now - PENDING_RETRY)
    )


def after_poll(result, fence):
    """Poll pace around push: slow while pushes arrive; back to normal when a poll finds more.

    Called under the feed's lock after an import. Returns the id of a
    subscription to request now (a hub found and not subscribed), or None.
    Push is an extra: its failure is logged and never fails the import.
    """
    if not enabled():
        return None
    try:
        return pace_and_discover(result, fence)
    except Exception:
        logger.exception("WebSub bookkeeping after the import of %s failed", result.feed.url)
        return None


def pace_and_discover(result, fence):
    feed, run = result.feed, result.run
    if run.outcome not in ("imported", "not_modified"):
        return None
    subscription = Subscription.objects.filter(feed=feed).first()
    now = timezone.now()
    if subscription and subscription.pushing(now):
        if run.created:  # posts no push brought: push is not to be trusted
            Subscription.objects.filter(pk=subscription.pk).update(missed_at=now)
            logger.info("feed %s: a poll found %d posts no push brought", feed.url, run.created)
        else:
            slow_down(feed, fence, now)
    fetched = result.fetched
    if fetched is None:
        return None
    return found_hub(feed, fetched.headers, fetched.body, fetched.url, current=subscription)


def slow_down(feed, fence, now):
    """Next poll of a pushed feed at ``DJANGOFEEDS_MAX_POLL_INTERVAL`` (never sooner than set),
    under ``fence`` (``write_fenced``): a newer import's next check stands."""
    later = now + timedelta(seconds=conf.DJANGOFEEDS_MAX_POLL_INTERVAL)
    # Not a feed claimed meanwhile, nor one due later already: no StaleFence either way.
    only_if = Q(claimed_at__isnull=True, next_check_at__lt=later)
    write_fenced(feed, fence, only_if=only_if, next_check_at=later)


def feed_dropped(sender, feed=None, instance=None, **kwargs):
    """Receiver of ``feed_deactivated`` and ``Feed``'s ``pre_delete``: tell the hub at once.

    The hourly renewal finds these too (``to_unsubscribe``); this only saves the wait.
    """
    feed = feed or instance
    if not enabled() or feed is None:
        return
    live = Subscription.objects.filter(feed_id=feed.pk, state__in=[State.PENDING, State.ACTIVE])
    for pk in live.values_list("pk", flat=True):
        transaction.on_commit(partial(send_unsubscribe, pk), robust=True)


def send_unsubscribe(pk):
    subscribe(pk, "unsubscribe")


def subscribe(subscription_id, *mode):
    """Queue a WebSub (un)subscription request (``mode``: ``"unsubscribe"``, else subscribe)."""
    current_app.signature(SUBSCRIBE_FEED, args=(subscription_id, *mode)).delay()


def subscribe_all(renew, drop):
    """Queue a WebSub renewal of each of ``renew``, an unsubscription of each of ``drop``."""
    for pk in renew:
        subscribe(pk)
    for pk in drop:
        subscribe(pk, "unsubscribe")
    return {"renewed": len(renew), "unsubscribed": len(drop)}
