"""djangofeeds_blog_shared: what both apps of the djangofeeds-blog distribution share.

Not a Django app (no models, templates or migrations; never in ``INSTALLED_APPS``):
a plain package of helpers that ``djangofeeds`` and ``blog`` both import, so that
neither app imports the other and a host may install either one alone. It holds
the query-parameter readers (``query``), the admin's safe changelist
(``changelist``), ``setup_schedules``' code (``schedules``), the mail both send
(``mail``) and the version.
"""

# The one place of the distribution's version: pyproject.toml reads this literal
# (setuptools' dynamic version); both apps re-export it as their ``__version__``.
__version__ = "1.0.0"
