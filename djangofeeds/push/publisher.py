"""WebSub, the publisher's part: tell hubs which of our topics changed (``hub.mode=publish``).

No Celery here (``djangofeeds.tasks.publish_to_hubs`` calls ``publish``). Hubs are
asked through the same rules as feed fetches (``protocol.post_form``).
"""

import logging

from djangofeeds.push.protocol import HubError, post_form

logger = logging.getLogger(__name__)


def publish(urls, hubs):
    """Tell each of ``hubs`` that ``urls`` changed (one POST each, ``hub.url`` repeated); the
    hubs that could not be told (logged), to ask again."""
    failed = []
    for hub in hubs:
        try:
            post_form(hub, {"hub.mode": "publish", "hub.url": list(urls)})
        except HubError as exc:
            logger.warning("WebSub: publishing to %s failed: %s", hub, exc)
            failed.append(hub)
        else:
            logger.info("WebSub: told %s of %d changed feeds", hub, len(urls))
    return failed
