"""The one boundary to spam checking: Akismet when AKISMET_API_KEY is set, local rules otherwise.

Callers get a ``CheckResponse`` (HAM, SPAM, DISCARD) and see only the akismet
library's exceptions: ``RequestError``/``ProtocolError`` (may succeed later) and
``ConfigurationError``/``APIKeyError`` (will not until an operator acts). The
key is verified once per process; a bad key is recorded in the cache, where
``/healthz`` reads it.
"""

import hashlib
import logging
import re
import threading
import time

import akismet
import httpx
from akismet import CheckResponse
from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)

HONEYPOT_FIELD = "website"
MISCONFIGURED_KEY = "blog:akismet-misconfigured"
USER_AGENT = f"djangofeeds-blog | {akismet.USER_AGENT}"

_lock = threading.Lock()
_client = None
_failure = None  # (when, exception) of this process's last failed key check


def backend_name():
    """``"akismet"`` when an API key is configured, else ``"local"``."""
    return "akismet" if settings.AKISMET_API_KEY else "local"


def build_payload(comment, remote_addr=None):
    """Everything Akismet uses about a comment, as keyword arguments of the library."""
    entry = comment.entry
    blog_url = settings.AKISMET_BLOG_URL.rstrip("/")
    return {
        "user_ip": comment.user_ip or remote_addr or "",
        "user_agent": comment.user_agent,
        "referrer": comment.referrer,
        "permalink": blog_url + entry.get_absolute_url(),
        "comment_type": "comment",
        "comment_author": comment.name,
        "comment_author_email": comment.email_address,
        "comment_author_url": comment.homepage,
        "comment_content": comment.comment,
        "comment_date_gmt": comment.pub_date.isoformat(),
        # Akismet's name for the post's publication time.
        "comment_post_modified_gmt": entry.pub_date.isoformat(),
        "blog_lang": settings.LANGUAGE_CODE.split("-")[0],
        "blog_charset": "UTF-8",
        "honeypot_field_name": HONEYPOT_FIELD,
    }


def check(payload, comment_id=None):
    """Ask the configured backend about a payload; returns a ``CheckResponse``."""
    return judge(payload, comment_id)[0]


def judge(payload, comment_id=None):
    """``check``, with the reasons the local rules found (Akismet gives none): for the history."""
    if backend_name() == "local":
        reasons = local_reasons(payload, comment_id)
        return (CheckResponse.SPAM if reasons else CheckResponse.HAM), ", ".join(reasons)
    return _call(lambda client: client.comment_check(**payload)), ""


def submit_spam(payload):
    """Tell Akismet a comment is spam; False when the local rules are in use."""
    if backend_name() == "local":
        return False
    return _call(lambda client: client.submit_spam(**payload))


def submit_ham(payload):
    """Tell Akismet a comment is not spam; False when the local rules are in use."""
    if backend_name() == "local":
        return False
    return _call(lambda client: client.submit_ham(**payload))


# --- local rules ------------------------------------------------------------

# A whole URL counts once: "https://www.example.com" is one link, not two.
LINK = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)


def local_reasons(payload, comment_id=None):
    """The local rules a payload breaks, as short phrases (empty: looks fine)."""
    from blog.models import Comment

    text = payload["comment_content"]
    reasons = []
    links = len(LINK.findall(text)) + bool(payload.get("comment_author_url"))
    if links > settings.BLOG_SPAM_MAX_LINKS:
        reasons.append(f"{links} links")
    # Whitespace folded, so a line break cannot split a blocked phrase.
    lowered = " ".join([*text.lower().split(), *payload.get("comment_author", "").lower().split()])
    reasons += [
        f"blocked word {word!r}"
        for word in settings.BLOG_SPAM_BLOCKED_WORDS
        # Whole words only: "cialis" must not flag a "specialist".
        if re.search(rf"(?<!\w){re.escape(word.lower())}(?!\w)", lowered)
    ]
    # Only earlier comments: re-checking the original must not make it a copy of its copy.
    duplicates = Comment.objects.filter(comment=text)
    if comment_id is not None:
        duplicates = duplicates.filter(pk__lt=comment_id)
    if text.strip() and duplicates.exists():
        reasons.append("same text as an earlier comment")
    return reasons


# --- the Akismet client -----------------------------------------------------


class RebasedTransport(httpx.HTTPTransport):
    """Sends each request to AKISMET_API_URL: the library hard-codes rest.akismet.com."""

    def __init__(self, base_url, **kwargs):
        super().__init__(**kwargs)
        self.base = httpx.URL(base_url)

    def handle_request(self, request):
        prefix = self.base.path.rstrip("/")
        request.url = request.url.copy_with(
            scheme=self.base.scheme,
            host=self.base.host,
            port=self.base.port,
            path=prefix + request.url.path,
        )
        request.headers["Host"] = request.url.netloc.decode("ascii")
        return super().handle_request(request)


def _new_client():
    http = httpx.Client(
        headers={"User-Agent": USER_AGENT},
        timeout=settings.BLOG_AKISMET_TIMEOUT,
        transport=RebasedTransport(settings.AKISMET_API_URL),
    )
    config = akismet.Config(key=settings.AKISMET_API_KEY, url=settings.AKISMET_BLOG_URL)
    try:
        return akismet.SyncClient.validated_client(config=config, http_client=http)
    except Exception:
        http.close()
        raise


def get_client():
    """This process's validated client: verify-key runs once, not per call."""
    global _client, _failure
    with _lock:
        if _client is not None:
            return _client
        if _failure and time.monotonic() - _failure[0] < settings.BLOG_AKISMET_KEY_RETRY_AFTER:
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


def reset_client():
    """Forget the client (a forked child must not share its parent's connections)."""
    global _client, _failure
    with _lock:
        _client, _failure = None, None


def _call(operation):
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


def config_fingerprint():
    """A hash of the Akismet settings, so a fixed key is not reported as still broken."""
    text = "|".join([settings.AKISMET_API_KEY, settings.AKISMET_BLOG_URL, settings.AKISMET_API_URL])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record_misconfigured(exc):
    # The library's message quotes the key: only the blog URL is worth showing.
    logger.error(
        "Akismet refused the configuration (key or blog URL %s): %s",
        settings.AKISMET_BLOG_URL,
        type(exc).__name__,
    )
    try:
        cache.set(MISCONFIGURED_KEY, config_fingerprint(), timeout=None)
    except Exception:
        logger.warning("could not record the Akismet misconfiguration in the cache", exc_info=True)


def clear_misconfigured():
    try:
        cache.delete(MISCONFIGURED_KEY)
    except Exception:
        logger.warning("could not clear the Akismet misconfiguration in the cache", exc_info=True)


def is_misconfigured():
    """True when a worker found the current Akismet settings refused."""
    if backend_name() != "akismet":
        return False
    try:
        return cache.get(MISCONFIGURED_KEY) == config_fingerprint()
    except Exception:
        return False  # the cache check reports an unreachable cache
