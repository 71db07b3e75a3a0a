"""project/axes.py: django-axes counts login failures per the address the blog's limit counts."""

from axes.helpers import get_client_ip_address
from django.test import RequestFactory

from project import axes


def test_client_ip_believes_forwarded_for_only_from_trusted_proxies(settings):
    """Behind a trusted proxy the visitor is the X-Forwarded-For address; from anyone else the
    header is ignored; axes itself reads it through AXES_CLIENT_IP_CALLABLE."""
    settings.BLOG_TRUSTED_PROXIES = ["10.0.0.0/8"]
    request = RequestFactory().get(
        "/admin/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.9"
    )
    assert axes.client_ip(request) == "203.0.113.9"
    assert settings.AXES_CLIENT_IP_CALLABLE == "project.axes.client_ip"
    assert get_client_ip_address(request) == "203.0.113.9"
    spoofed = RequestFactory().get(
        "/admin/", REMOTE_ADDR="192.0.2.7", HTTP_X_FORWARDED_FOR="203.0.113.9"
    )
    assert axes.client_ip(spoofed) == "192.0.2.7"
