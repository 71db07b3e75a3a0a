"""Settings for the blog's worker subprocesses: the test settings with retries in seconds."""

from tests.blog.helpers import FAST_RETRIES
from tests.settings import *  # noqa: F403

globals().update(FAST_RETRIES)  # the same values the tests use in-process
