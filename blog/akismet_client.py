"""Akismet as a spam backend, and this process's client: the key verified once, a refusal
recorded for /healthz.

The client's functions raise only the akismet library's exceptions;
``AkismetBackend`` turns them into the interface's (``blog.spam_backends``).
Loaded only when this backend is in use. The key is verified when the
client is first built (once per process: a forked child builds its own, see
``reset_client``); a key Akismet refuses is asked about again only after
BLOG_AKISMET_KEY_RETRY_AFTER seconds, and is recorded in the cache, where
``/healthz`` reads it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import akismet
import httpx
from django.core.cache import cache

from blog import conf
from blog.spam import build_payload
from blog.spam_backends import Refused, SpamBackend, TemporaryFailure, Verdict

if TYPE_CHECKING:
    from blog.models import Comment

T = TypeVar("T")

logger = logging.getLogger(__name__)

MISCONFIGURED_KEY = "blog:akismet-misconfigured"
USER_AGENT = f"djangofeeds-blog | {akismet.USER_AGENT}"

_lock = threading.Lock()
_client: akismet.SyncClient | None = None
# (when, exception) of this process's last failed key check
_failure: tuple[float, akismet.ConfigurationError] | None = None


def in_use() -> bool:
    """True when an API key is configured: Akismet judges, not the local rules."""
    return bool(conf.AKISMET_API_KEY)


class RebasedTransport(httpx.HTTPTransport):
    """Sends each request to AKISMET_API_URL: the library hard-codes rest.akismet.com."""

    def __init__(self, base_url: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = httpx.URL(base_url)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        prefix = self.base.path.rstrip("/")
        request.url = request.url.copy_with(
            scheme=self.base.scheme,
            host=self.base.host,
            port=self.base.port,
            path=prefix + request.url.path,
        )
        request.headers["Host"] = request.url.netloc.decode("ascii")
        return super().handle_request(request)


# httpx keeps 20 idle connections by default: a threads-pool worker with more
# threads than that closed the rest after each burst of checks, and opened them
# again, each with a new TLS handshake, for the next. Every connection opened is
# kept (idle ones still close after httpx's keep-alive expiry, 5 s).
CONNECTIONS = httpx.Limits(max_connections=100, max_keepalive_connections=100)


ALERT_CODE, ALERT_MESSAGE = "X-akismet-alert-code", "X-akismet-alert-msg"


def note_alert(response: httpx.Response) -> None:
    """Akismet's alert headers, on any answer: logged in one line and kept for the admin."""
    code = response.headers.get(ALERT_CODE)
    if code is None:
        return
    message = response.headers.get(ALERT_MESSAGE, "")
    logger.warning("Akismet alert %s: %s", code, message)
    try:
        from blog.models import (
            SpamServiceStatus,
        )  # not at import: akismet_client loads before the apps

        SpamServiceStatus.record_alert(code, message)
    except Exception:
        logger.warning("could not store the Akismet alert", exc_info=True)


class BlogClient(akismet.SyncClient):
    """The library's client, sending the honeypot's value as Akismet asks: under the
    name ``honeypot_field_name`` gives (the library knows that field but refuses the
    field it names, so it is taken out before the library checks the arguments)."""

    def _post_request(
        self, version: str, endpoint: str, user_ip: str, **kwargs: Any
    ) -> httpx.Response:
        name = kwargs.get("honeypot_field_name")
        if not name or name not in kwargs:
            return super()._post_request(version, endpoint, user_ip, **kwargs)
        honeypot = {name: kwargs.pop(name)}
        checked = akismet._common._prepare_post_kwargs(kwargs, endpoint)  # the library's own check
        data = {"api_key": self._config.key, "blog": self._config.url, "user_ip": user_ip}
        return self._request("POST", version, endpoint, data=data | checked | honeypot)


def _new_client() -> akismet.SyncClient:
    http = httpx.Client(
        event_hooks={"response": [note_alert]},
        headers={"User-Agent": USER_AGENT},
        timeout=conf.BLOG_AKISMET_TIMEOUT,
        transport=RebasedTransport(conf.AKISMET_API_URL, limits=CONNECTIONS),
    )
    config = akismet.Config(key=conf.AKISMET_API_KEY, url=conf.AKISMET_BLOG_URL)
    try:
        return BlogClient.validated_client(config=config, http_client=http)
    except Exception:
        http.close()
        raise


def get_client() -> akismet.SyncClient:
    """This process's validated client: verify-key runs once, not per call."""
    global _client, _failure
    with _lock:
        if _client is not None:
            return _client
        if _failure and time.monotonic() - _failure[0] < conf.BLOG_AKISMET_KEY_RETRY_AFTER:
            record_misconfigured(_failure[1])
            raise _failure[1]
        try:
            _client = _new_client()
        except akismet.ConfigurationError as exc:
            _failure = (time.monotonic(), exc)
            record_misconfigured(exc)
            raise
        _failure = None
        clear_misconfigured()
        return _client


def reset_client() -> None:
    """Forget the client: the next call verifies the key again."""
    global _client, _failure
    with _lock:
        _client, _failure = None, None


# A forked child (a prefork worker process, any forking server) must not share
# its parent's HTTP connections: it verifies the key with a client of its own.
os.register_at_fork(after_in_child=reset_client)


def call(operation: Callable[[akismet.SyncClient], T]) -> T:
    """``operation(client)`` with this process's client; a key refused now is recorded."""
    global _client, _failure
    client = get_client()
    try:
        return operation(client)
    except akismet.ConfigurationError as exc:
        # The key was valid at start-up and is not any more (revoked, lapsed).
        with _lock:
            _client, _failure = None, (time.monotonic(), exc)
        record_misconfigured(exc)
        raise


# --- what /healthz reads ----------------------------------------------------


def config_fingerprint() -> str:
    """A hash of the Akismet settings, so a fixed key is not reported as still broken."""
    text = "|".join([conf.AKISMET_API_KEY, conf.AKISMET_BLOG_URL, conf.AKISMET_API_URL])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record_misconfigured(exc: Exception) -> None:
    # The library's message quotes the key: only the blog URL is worth showing.
    logger.error(
        "Akismet refused the configuration (key or blog URL %s): %s",
        conf.AKISMET_BLOG_URL,
        type(exc).__name__,
    )
    try:
        cache.set(MISCONFIGURED_KEY, config_fingerprint(), timeout=None)
    except Exception:
        logger.warning("could not record the Akismet misconfiguration in the cache", exc_info=True)


def clear_misconfigured() -> None:
    try:
        cache.delete(MISCONFIGURED_KEY)
    except Exception:
        logger.warning("could not clear the Akismet misconfiguration in the cache", exc_info=True)


def is_misconfigured() -> bool:
    """True when a worker found the current Akismet settings refused."""
    if not in_use():
        return False
    try:
        return cache.get(MISCONFIGURED_KEY) == config_fingerprint()
    except Exception:
        return False  # the cache check reports an unreachable cache


# --- the key's usage, for the admin ----------------------------------------------


def usage() -> dict[str, Any]:
    """Akismet's usage-limit answer ({"limit", "usage", "percentage", "throttled"}), kept
    BLOG_AKISMET_USAGE_CACHE_SECONDS; ``{"error": ...}`` when it cannot be had (never raises)."""
    key = f"blog:akismet-usage:{config_fingerprint()}"  # another key's usage is not this one's
    try:
        cached = cache.get(key)
    except Exception:
        cached = None
    if cached is not None:
        return cached
    try:
        answer = call(lambda client: client.usage_limit())
    except Exception as exc:  # shown in the admin, which must open all the same
        logger.warning("Akismet usage-limit failed: %s", without_key(exc))
        return {"error": f"{type(exc).__name__}: {without_key(exc)}"}
    if not isinstance(answer, dict):
        return {"error": f"unexpected answer: {answer!r}"[:200]}
    try:
        cache.set(key, answer, timeout=conf.BLOG_AKISMET_USAGE_CACHE_SECONDS)
    except Exception:
        logger.warning("could not keep the Akismet usage in the cache", exc_info=True)
    return answer


# --- the backend --------------------------------------------------------------

VERDICTS = {
    akismet.CheckResponse.HAM: Verdict.HAM,
    akismet.CheckResponse.SPAM: Verdict.SPAM,
    akismet.CheckResponse.DISCARD: Verdict.DISCARD,
}


def without_key(exc: Exception) -> str:
    """The exception's message without the API key (the library's refusal quotes it)."""
    text = str(exc)
    return text.replace(conf.AKISMET_API_KEY, "[hidden]") if conf.AKISMET_API_KEY else text


class AkismetBackend(SpamBackend):
    """Akismet (through the akismet library), base URL AKISMET_API_URL."""

    name = "akismet"
    remote = True

    def ask(self, operation: Callable[[akismet.SyncClient], T]) -> T:
        """``operation(client)``, the library's exceptions turned into the interface's."""
        try:
            return call(operation)
        except akismet.ConfigurationError as exc:
            raise Refused(
                f"Akismet refused the key or blog URL ({type(exc).__name__})"
            ) from None  # the library's message quotes the key
        except (akismet.RequestError, akismet.ProtocolError) as exc:
            # Network errors, timeouts, 5xx, and answers that are not Akismet's.
            raise TemporaryFailure(without_key(exc)) from exc

    def check(self, comment: Comment, remote_addr: str | None = None) -> Verdict:
        # Any: the library types its keyword arguments one by one (a TypedDict).
        reason = getattr(comment, "recheck_reason", "")  # set by the spam_filter task
        payload: dict[str, Any] = build_payload(comment, remote_addr, reason)
        answer = self.ask(lambda client: client.comment_check(**payload))
        return Verdict(VERDICTS[answer], "", payload)

    def submit_spam(self, comment: Comment) -> bool:
        # The data the check was made with; a comment never checked gets it built now.
        payload = comment.akismet_payload or build_payload(comment)
        return self.ask(lambda client: client.submit_spam(**payload))

    def submit_ham(self, comment: Comment) -> bool:
        payload = comment.akismet_payload or build_payload(comment)
        return self.ask(lambda client: client.submit_ham(**payload))

    def is_misconfigured(self) -> bool:
        return is_misconfigured()
