"""The WebSub callback: the hub's verification of intent (GET) and its content pushes (POST)."""

import base64
import logging

from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from djangofeeds import conf, websub
from djangofeeds.models import Subscription
from djangofeeds.websub_protocol import check_signature

logger = logging.getLogger(__name__)
READ_CHUNK = 64 * 1024


class TooLarge(Exception):
    """The pushed body is over ``DJANGOFEEDS_MAX_BYTES``."""


# Hubs hold no CSRF token: the callback's secret path and the body's
# signature (hub.secret) are the authentication.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def callback(request, token):
    """Answer the hub: the challenge for a subscription we asked for; accept signed content."""
    if request.method == "GET":
        status, body = websub.verify(token, request.GET)
        return HttpResponse(body, status=status, content_type="text/plain; charset=utf-8")
    subscription = Subscription.objects.filter(token=token, state=Subscription.State.ACTIVE).first()
    if subscription is None:
        return HttpResponse(status=404)
    try:
        body = read_capped(request, conf.DJANGOFEEDS_MAX_BYTES)
    except TooLarge:
        logger.warning(
            "push to %s refused: over %d bytes", subscription.topic, conf.DJANGOFEEDS_MAX_BYTES
        )
        return HttpResponse(status=413)
    ok, why = check_signature(subscription.secret, body, request.headers.get("X-Hub-Signature"))
    if not ok:
        # W3C WebSub 8: ignored, yet acknowledged, so a forger learns nothing.
        logger.warning("push to %s from %s ignored: %s", subscription.topic, client(request), why)
        return HttpResponse(status=202)
    from djangofeeds.tasks import store_push  # Celery only when a push arrives

    try:
        store_push.delay(
            subscription.pk,
            base64.b64encode(body).decode("ascii"),
            request.headers.get("Content-Type", ""),
        )
    except Exception as exc:  # the broker: the hub retries a push that was not acknowledged
        logger.error("push to %s not queued (%s: %s)", subscription.topic, type(exc).__name__, exc)
        return HttpResponse(status=503)
    return HttpResponse(status=202)


def read_capped(request, cap):
    """The request body, refused past ``cap`` bytes (announced or read), never more read."""
    length = request.META.get("CONTENT_LENGTH", "")
    if length.isascii() and length.isdigit() and int(length) > cap:
        raise TooLarge
    # request.read(), not request.body: the body is bounded here by the feeds' own cap.
    body = bytearray()
    while chunk := request.read(min(READ_CHUNK, cap + 1 - len(body))):
        body += chunk
        if len(body) > cap:
            raise TooLarge
    return bytes(body)


def client(request):
    return request.META.get("REMOTE_ADDR", "?")
