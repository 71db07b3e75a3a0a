"""The blog: entries, and (with their own issue) comments checked for spam."""

from django.apps import AppConfig


class BlogConfig(AppConfig):
    name = "blog"
    verbose_name = "Blog"
