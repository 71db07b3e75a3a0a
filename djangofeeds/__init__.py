"""djangofeeds: a reusable Django app that imports RSS, Atom and JSON feeds with Celery."""

# The one place of the distribution's version: pyproject.toml reads this literal
# (setuptools' dynamic version), and blog reports the installed distribution's.
__version__ = "1.0.0"
