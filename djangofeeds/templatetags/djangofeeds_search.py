"""Filters for search results: ``{% load djangofeeds_search %}``."""

from django import template

from djangofeeds.search import highlight

register = template.Library()


@register.filter
def search_highlight(text, query):
    """Plain text (a title) escaped, the query's words in ``<mark>``."""
    return highlight.highlight(text, query)


@register.filter
def search_excerpt(html, query):
    """A plain-text excerpt of sanitized HTML around the query's first match, words marked."""
    return highlight.excerpt(html, query)
