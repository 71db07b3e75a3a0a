"""The site's Content-Security-Policy, sent as a response header.

The apps' pages carry a ``<meta>`` policy for the hosts that install them; the
site sends its own as a header, which a ``<meta>`` cannot replace: only a header
says ``frame-ancestors``, covers responses that are not HTML pages, and stays when
a host's template drops the tag. A browser enforces both, so a page stays as
strict as its ``<meta>`` says.

Django 6 sends ``SECURE_CSP`` with its own middleware. Django 5.2 has none; there
this module's middleware sends the same setting in the same way (without nonces,
which the site does not use): one setting, one middleware name, either version.
"""

from django.conf import settings

try:
    from django.middleware.csp import ContentSecurityPolicyMiddleware
except ImportError:  # Django 5.2

    def build_policy(config):
        """``{"default-src": ["'self'"], ...}`` as the header's text (Django 6's rule)."""
        parts = []
        for directive, values in config.items():
            if values in (None, False):
                continue
            if values is True:
                parts.append(directive)
                continue
            values = sorted(values) if isinstance(values, set) else values
            values = [values] if isinstance(values, str) else values
            if values:
                parts.append(f"{directive} {' '.join(values)}")
        return "; ".join(parts)

    class ContentSecurityPolicyMiddleware:
        """Django 6's middleware for Django 5.2: a view's own header is left as it is."""

        def __init__(self, get_response):
            self.get_response = get_response

        def __call__(self, request):
            response = self.get_response(request)
            for header, name in [
                ("Content-Security-Policy", "SECURE_CSP"),
                ("Content-Security-Policy-Report-Only", "SECURE_CSP_REPORT_ONLY"),
            ]:
                config = getattr(settings, name, None)
                if config and header not in response:
                    response.headers[header] = build_policy(config)
            return response


__all__ = ["ContentSecurityPolicyMiddleware"]
