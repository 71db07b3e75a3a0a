"""The weekly health digest: the week's changes of feed health, mailed by a beat task.

To ``DJANGOFEEDS_DIGEST_TO`` (None: the site's ``ADMINS``), through Django's mail
backend, with a text and an HTML part rendered from templates a host can
override (``djangofeeds/mail/health_digest*``). A week without a change sends nothing.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Count
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from djangofeeds import conf
from djangofeeds.models import Feed, Health, HealthChange
from djangofeeds_blog_shared.mail import addresses, send_templated

logger = logging.getLogger(__name__)

WEEK = timedelta(days=7)
# The changes a mail lists; the admin's health page has them all.
LISTED = 200


def state_counts():
    """``[(state, label, feeds)]`` for every state, the empty ones too."""
    counts = dict(Feed.objects.values_list("health").annotate(Count("pk")).order_by())
    return [(state.value, state.label, counts.get(state.value, 0)) for state in Health]


def recipients():
    """``DJANGOFEEDS_DIGEST_TO``, else the ``ADMINS`` (``(name, address)`` pairs formatted)."""
    listed = settings.ADMINS if conf.DJANGOFEEDS_DIGEST_TO is None else conf.DJANGOFEEDS_DIGEST_TO
    return addresses(listed)


def health_page_url():
    """The admin's health page as a link in the mail: absolute when DJANGOFEEDS_PUBLIC_URL
    is set, else None (and None on a site whose admin is not at ``admin:``)."""
    try:
        path = reverse("admin:djangofeeds_feed_health")
    except NoReverseMatch:
        return None
    return conf.public_url(path) if conf.DJANGOFEEDS_PUBLIC_URL else None


def send_digest(now=None):
    """Mail the health changes of the week before ``now``; how many it mailed (0: no
    change, or no recipient, and no mail)."""
    now = now or timezone.now()
    to = recipients()
    week = HealthChange.objects.filter(changed_at__gt=now - WEEK, changed_at__lte=now)
    total = week.count()
    if not total:
        return 0
    if not to:
        logger.warning("%d feed health changes this week, but no one to mail them to", total)
        return 0
    context = {
        "changes": week.select_related("feed")[:LISTED],
        "total": total,
        "since": now - WEEK,
        "counts": state_counts(),
        "health_url": health_page_url(),
    }
    send_templated("djangofeeds/mail/health_digest", context, to)
    logger.info("feed health digest: %d changes mailed to %d recipients", total, len(to))
    return total
