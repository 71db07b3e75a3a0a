"""Filters for showing feed posts to readers."""

from django import template
from django.utils.safestring import mark_safe

from djangofeeds.parsing.sanitize import safe_html

register = template.Library()


@register.filter
def reader_html(content):
    """A post's stored HTML as readers get it, through the importer's sanitizer once more.

    Posts stored before a rule was added get it too: images that send no
    referrer and load lazily (feed authors cannot track who reads), links with
    ``rel="noopener noreferrer nofollow"``.
    """
    return mark_safe(safe_html(content))


@register.filter
def duration(seconds):
    """Seconds as a podcast player shows them: "1:02:03" from an hour on, else "2:03"."""
    if seconds is None or seconds == "":
        return ""
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{seconds:02}" if hours else f"{minutes}:{seconds:02}"
