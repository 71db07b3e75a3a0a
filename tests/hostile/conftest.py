"""Fixtures of the hostile-input matrix."""

import pytest

from djangofeeds.fetching import addresses


@pytest.fixture
def public_loopback(settings, monkeypatch):
    """Private addresses refused, except 127.0.0.1, which stands in for a public server.

    Every other address is still judged by the real ``is_public``.
    """
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    real_is_public = addresses.is_public
    monkeypatch.setattr(
        addresses, "is_public", lambda address: address == "127.0.0.1" or real_is_public(address)
    )
