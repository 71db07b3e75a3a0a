"""blog's system checks: bad settings are reported at start-up, with the check's id."""

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from blog import conf
from blog.checks import check_moderators, check_numbers, check_trusted_proxies


@pytest.mark.parametrize(
    "value", ["10.0.0.1", ["10.0.0.1", "not-an-ip"], ["10.0.0.300"], [None], {"10.0.0.1"}]
)
def test_trusted_proxies_check_refuses_malformed_values(settings, value):
    """A string, a set, a bad address or a non-string entry is blog.E002."""
    settings.BLOG_TRUSTED_PROXIES = value
    errors = check_trusted_proxies(None)
    assert errors and {error.id for error in errors} == {"blog.E002"}


def test_trusted_proxies_check_accepts_addresses_and_networks(settings):
    """IPv4 and IPv6 addresses and CIDR networks pass."""
    settings.BLOG_TRUSTED_PROXIES = ["10.0.0.5", "172.16.0.0/12", "::1", "fd00::/8"]
    assert check_trusted_proxies(None) == []


def test_numbers_check_refuses_a_negative_rate_limit(settings):
    """A negative rate limit is blog.E003, naming the setting."""
    settings.BLOG_COMMENTS_PER_MINUTE = -1
    [error] = check_numbers(None)
    assert error.id == "blog.E003" and "BLOG_COMMENTS_PER_MINUTE" in error.msg


def test_checks_pass_on_every_default(settings):
    """With none of blog's settings set, every check passes."""
    for name in conf.DEFAULTS:
        if hasattr(settings, name):
            delattr(settings, name)
    assert check_trusted_proxies(None) == [] and check_numbers(None) == []


@pytest.mark.django_db  # Django 6.1's model checks ask the database (JSONField support)
def test_bad_setting_stops_manage_py_check(settings):
    """``manage.py check`` fails on a bad setting, as a host's deploy would."""
    settings.BLOG_TRUSTED_PROXIES = "10.0.0.1"
    with pytest.raises(SystemCheckError, match=r"blog\.E002"):
        call_command("check")


def test_holding_comments_with_no_one_to_mail_is_a_warning(settings):
    """blog.W001: held comments would wait unseen; a moderator or a manager silences it."""
    settings.BLOG_HOLD_FOR_MODERATION, settings.BLOG_MODERATORS, settings.MANAGERS = True, None, []
    [warning] = check_moderators(None)
    assert warning.id == "blog.W001" and "BLOG_MODERATORS" in warning.hint
    settings.MANAGERS = ["boss@example.com"]
    assert check_moderators(None) == []
    settings.BLOG_MODERATORS, settings.BLOG_HOLD_FOR_MODERATION = [], False
    assert check_moderators(None) == []
