"""System checks: the spam backend must load before a comment needs it."""

from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured

from blog import spam


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
