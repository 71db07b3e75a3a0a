"""System checks: blog's settings, caught at start-up instead of at the first comment.

- ``blog.E001``: the spam backend in use cannot be loaded.
- ``blog.E002``: ``BLOG_TRUSTED_PROXIES`` is not a list of IP addresses or networks.
- ``blog.E003``: a setting of the wrong type or out of range.
- ``blog.W001``: comments are held for moderation, and no moderator is mailed.
"""

import ipaddress

from django.core.checks import Error, Warning, register
from django.core.exceptions import ImproperlyConfigured

from blog import conf, notices, spam

# Whole numbers, each with its smallest sensible value.
WHOLE_NUMBERS = {
    "BLOG_COMMENTS_PER_MINUTE": 0,
    "BLOG_AKISMET_TIMEOUT": 1,
    "BLOG_AKISMET_KEY_RETRY_AFTER": 0,
    "BLOG_SPAM_RETRY_BACKOFF": 1,
    "BLOG_SPAM_RETRY_BACKOFF_MAX": 1,
    "BLOG_SPAM_MAX_RETRIES": 0,
    "BLOG_SPAM_RECHECK_AFTER_MINUTES": 1,
    "BLOG_SPAM_PURGE_AFTER_DAYS": 1,
    "BLOG_SPAM_MAX_LINKS": 0,
    "BLOG_MODERATION_LINK_DAYS": 1,
    "BLOG_MAIL_RETRY_BACKOFF": 1,
    "BLOG_MAIL_RETRY_BACKOFF_MAX": 1,
    "BLOG_MAIL_MAX_RETRIES": 0,
}


@register()
def check_spam_backend(app_configs, **kwargs):
    """blog.E001: the backend in use (BLOG_SPAM_BACKEND, or the default) cannot be loaded."""
    try:
        spam.load_backend(spam.backend_path())
    except ImproperlyConfigured as exc:
        hint = (
            "Set BLOG_SPAM_BACKEND to the dotted path of a blog.spam_backends.SpamBackend "
            "subclass, or leave it unset (Akismet with AKISMET_API_KEY, else the local rules)."
        )
        return [Error(str(exc), hint=hint, id="blog.E001")]
    return []


@register()
def check_trusted_proxies(app_configs, **kwargs):
    proxies = conf.BLOG_TRUSTED_PROXIES
    if isinstance(proxies, str) or not isinstance(proxies, list | tuple):
        return [
            Error(
                f"BLOG_TRUSTED_PROXIES must be a list of IP addresses or networks, not {proxies!r}",
                hint='For example BLOG_TRUSTED_PROXIES = ["10.0.0.5", "172.16.0.0/12"].',
                id="blog.E002",
            )
        ]
    errors = []
    for proxy in proxies:
        try:
            ipaddress.ip_network(proxy, strict=False)
        except (TypeError, ValueError):
            errors.append(
                Error(
                    f"BLOG_TRUSTED_PROXIES: {proxy!r} is not an IP address or network.",
                    hint='Write an address ("10.0.0.5") or a CIDR network ("10.0.0.0/8").',
                    id="blog.E002",
                )
            )
    return errors


@register()
def check_numbers(app_configs, **kwargs):
    errors = []
    for name, minimum in WHOLE_NUMBERS.items():
        value = getattr(conf, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            errors.append(
                Error(
                    f"{name} must be a whole number of at least {minimum}, not {value!r}.",
                    hint=f"Set {name} in your settings, or remove it to use the default.",
                    id="blog.E003",
                )
            )
    return errors


@register()
def check_moderators(app_configs, **kwargs):
    """blog.W001: held comments would wait with no one told (no BLOG_MODERATORS, no MANAGERS)."""
    if conf.BLOG_HOLD_FOR_MODERATION and not notices.moderators():
        return [
            Warning(
                "BLOG_HOLD_FOR_MODERATION is on, and no moderator is mailed the comments held.",
                hint='Set BLOG_MODERATORS (or MANAGERS), e.g. ["Ann <ann@example.com>"].',
                id="blog.W001",
            )
        ]
    return []
