"""Reading settings from the environment: typed values, and the refusals of unsafe ones.

A wrong value stops the process at start (``ImproperlyConfigured``) with the
variable's name, instead of running on a guess.
"""

import ipaddress
import os

from django.core.exceptions import ImproperlyConfigured

DEV_SECRET_KEY = "django-insecure-dev-only-key-never-use-in-production"


def env_str(name, default=""):
    return os.environ.get(name, default)


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be 0 or 1, not {value!r}.")


def env_int(name, default):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}.") from None


def env_list(name, default):
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


def env_networks(name):
    """A comma-separated list of IP addresses or CIDR networks, each checked."""
    networks = env_list(name, "")
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {network!r} is not an IP address or network."
            ) from None
    return networks


def secret_key(debug):
    """DJANGO_SECRET_KEY; the development key only with DEBUG on."""
    key = env_str("DJANGO_SECRET_KEY", DEV_SECRET_KEY)
    if not debug and key == DEV_SECRET_KEY:
        raise ImproperlyConfigured(
            "DJANGO_DEBUG is off but DJANGO_SECRET_KEY is not set: refusing to run with the "
            "development secret key. Set DJANGO_SECRET_KEY to a long random value, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))', "
            "or set DJANGO_DEBUG=1 for development."
        )
    return key


def refuse_trust_x_forwarded_for():
    """BLOG_TRUST_X_FORWARDED_FOR let every client pick its own IP (issue 14, S1): gone."""
    if os.environ.get("BLOG_TRUST_X_FORWARDED_FOR", "0") not in {"", "0"}:
        raise ImproperlyConfigured(
            "BLOG_TRUST_X_FORWARDED_FOR is gone: list your proxies' addresses in "
            "BLOG_TRUSTED_PROXIES instead (e.g. BLOG_TRUSTED_PROXIES=10.0.0.5,172.16.0.0/12)."
        )
