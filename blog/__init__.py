"""blog: a reusable Django app, a blog whose comments are spam-checked by Celery."""

# The distribution's version lives in the package both apps share: blog imports
# nothing of djangofeeds, so a host may install it alone.
from djangofeeds_blog_shared import __version__

__all__ = ["__version__"]
