"""Secrets never reach a log line.

Libraries put secrets into their messages (the akismet library's refusal
reads "Found API key: <the key>"). ``hide_secrets`` replaces every configured
secret in a text; ``HideSecrets`` does it to every log record, message and
traceback alike, on the console handler of the settings' LOGGING and on
Celery's own handlers (project/celery.py). A WebSub callback's path is a secret
too (its subscription's token), as are the blog's mailed links (blog.mail_links):
``hide_callback_tokens`` hides them in Django's
lines ("Not Found: /feeds/websub/<token>/") and gunicorn's access log
(project/access_log.py); nginx's access log does the same with a ``map``
(deploy/nginx/templates/default.conf.template). A project concern: the apps never
import it (the blog's Akismet backend keeps the key out of what it stores).
"""

import logging
import re

from django.conf import settings

HIDDEN = "[hidden]"
# Shorter values are no secret worth the name, and would blot out ordinary words.
MIN_LENGTH = 6
# djangofeeds' callback, wherever the host mounts it: <mount>websub/<token>/; and the
# blog's mailed links (a moderator's, a commenter's unsubscribe), tokens as well.
CALLBACK_TOKEN = re.compile(r"(/(?:websub|comments/moderate|comments/unsubscribe)/)[^/?#\s\"]+")


def secrets():
    """The configured secret values, longest first (one may contain another)."""
    database = settings.DATABASES["default"]
    values = {
        settings.SECRET_KEY,
        getattr(settings, "AKISMET_API_KEY", ""),
        database.get("PASSWORD") or "",
    }
    values.add(broker_password(settings.CELERY_BROKER_URL))
    return sorted((value for value in values if len(value) >= MIN_LENGTH), key=len, reverse=True)


def broker_password(url):
    userinfo = url.partition("://")[2].partition("@")
    return userinfo[0].partition(":")[2] if userinfo[1] else ""


def hide_callback_tokens(text):
    """``text`` with each WebSub callback's token replaced by ``[hidden]``."""
    return CALLBACK_TOKEN.sub(rf"\g<1>{HIDDEN}", text)


def hide_secrets(text):
    """``text`` with every configured secret and callback token replaced by ``[hidden]``."""
    text = hide_callback_tokens(str(text))
    for secret in secrets():
        text = text.replace(secret, HIDDEN)
    return text


class HideSecrets(logging.Filter):
    """A handler filter: the record's message and traceback without secrets."""

    def filter(self, record):
        try:
            message = hide_secrets(record.getMessage())
        except Exception:  # a broken format string is the formatter's to report
            return True
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg, record.args = message, None
        if record.exc_text:
            record.exc_text = hide_secrets(record.exc_text)
        return True


def hide_secrets_in(logger):
    """Add the filter to every handler of ``logger`` (Celery's, once it set them up)."""
    for handler in logger.handlers:
        if not any(isinstance(existing, HideSecrets) for existing in handler.filters):
            handler.addFilter(HideSecrets())
