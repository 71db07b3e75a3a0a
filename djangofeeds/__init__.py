"""djangofeeds: a reusable Django app that imports RSS, Atom and JSON feeds with Celery."""

# The distribution's version lives in the package both apps share.
from djangofeeds_blog_shared import __version__

__all__ = ["__version__"]
