"""project/redact.py: configured secrets never reach a log line."""

import logging
import sys

from project.redact import HIDDEN, HideSecrets, hide_callback_tokens, hide_secrets


def test_hide_secrets_replaces_every_configured_secret(settings):
    """The Akismet key, the broker's password and the secret key become [hidden]; short
    values are left alone."""
    settings.AKISMET_API_KEY = "akismet-0123456789"
    settings.CELERY_BROKER_URL = "redis://:broker-pass-42@127.0.0.1:6379/0"
    text = f"key {settings.AKISMET_API_KEY}, broker broker-pass-42, {settings.SECRET_KEY}"
    assert hide_secrets(text) == f"key {HIDDEN}, broker {HIDDEN}, {HIDDEN}"
    settings.AKISMET_API_KEY = "abc"
    assert hide_secrets("abc") == "abc"


def test_hide_secrets_filter_cleans_message_and_traceback(settings):
    """The logging filter rewrites a record's message and its traceback text."""
    settings.AKISMET_API_KEY = "akismet-0123456789"
    try:
        raise ValueError(f"Found API key: {settings.AKISMET_API_KEY}")
    except ValueError as exc:
        record = logging.getLogger("test").makeRecord(
            "test", logging.ERROR, __file__, 1, "refused: %s", (exc,), sys.exc_info()
        )
    assert HideSecrets().filter(record) is True
    assert settings.AKISMET_API_KEY not in record.getMessage()
    assert settings.AKISMET_API_KEY not in record.exc_text and HIDDEN in record.exc_text


def test_hide_callback_tokens_hides_the_path_segment_after_websub():
    """A WebSub callback's token is hidden wherever the app is mounted, query and the rest
    kept; other paths are left alone."""
    assert hide_callback_tokens("GET /feeds/websub/s3cr3T-_x/?hub.mode=a HTTP/1.1") == (
        f"GET /feeds/websub/{HIDDEN}/?hub.mode=a HTTP/1.1"
    )
    assert hide_callback_tokens("Not Found: /x/websub/abc") == f"Not Found: /x/websub/{HIDDEN}"
    assert hide_callback_tokens("/feeds/12/ websub/") == "/feeds/12/ websub/"


def test_hide_callback_tokens_hides_the_blogs_mailed_link_tokens():
    """A moderator's link publishes a comment for a week: it is a secret in a log line too."""
    line = "POST /blog/comments/moderate/WzEsInB1Ymxpc2giXQ:1v:abc/ HTTP/1.1"
    assert hide_callback_tokens(line) == f"POST /blog/comments/moderate/{HIDDEN}/ HTTP/1.1"
    assert hide_callback_tokens("/blog/comments/unsubscribe/12:sig/") == (
        f"/blog/comments/unsubscribe/{HIDDEN}/"
    )
    assert hide_callback_tokens("/blog/my-entry/comments/feed/") == "/blog/my-entry/comments/feed/"


def test_hide_secrets_hides_callback_tokens_too():
    """Django's own lines ("Not Found: <path>") go through the same filter."""
    assert hide_secrets("Not Found: /feeds/websub/tok123456/") == (
        f"Not Found: /feeds/websub/{HIDDEN}/"
    )
