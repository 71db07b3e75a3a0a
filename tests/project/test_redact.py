"""project/redact.py: configured secrets never reach a log line."""

import logging
import sys

from project.redact import HIDDEN, HideSecrets, hide_secrets


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
