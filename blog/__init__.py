"""blog: a reusable Django app, a blog whose comments are spam-checked by Celery."""

from importlib import metadata

DISTRIBUTION = "djangofeeds-blog"


def __getattr__(name):
    """``blog.__version__``: the version of the installed distribution that ships blog.

    The number lives once, in djangofeeds/__init__.py (the wheel's metadata is made
    from it); blog reads the metadata, so it neither repeats the number nor imports
    djangofeeds. Looked up when asked, not at import.
    """
    if name != "__version__":
        raise AttributeError(f"module 'blog' has no attribute {name!r}")
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        # A source checkout that is not installed: its djangofeeds/ beside blog/ holds
        # the number (reading a module of the same tree, not the djangofeeds app).
        from djangofeeds import __version__

        return __version__
