"""Admin for feeds: status at a glance, imports on demand, runs and posts read-only.

One module per model family; importing them registers their ``ModelAdmin``
classes (``@admin.register``) when Django's admin autodiscovers this package.
"""

from djangofeeds.admin import feeds, health, posts, rules, runs, websub

__all__ = ["feeds", "health", "posts", "rules", "runs", "websub"]
