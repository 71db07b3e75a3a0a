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
