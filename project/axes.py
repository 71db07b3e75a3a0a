"""django-axes' client IP (AXES_CLIENT_IP_CALLABLE): the address the blog's rate limit counts.

One notion of "the visitor" for admin lockouts and comment limits: X-Forwarded-For
is believed only from BLOG_TRUSTED_PROXIES (see blog.client_ip).
"""

from blog.client_ip import client_ip as blog_client_ip


def client_ip(request):
    """The request's client IP for axes, or None when there is none to be had."""
    return blog_client_ip(request)
