"""The wheel, built once per session, and a virtualenv with it per supported Django release."""

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.host_env import build_wheel, host_venv, require_python


@dataclass
class Release:
    """A supported Django release, the Pythons to try for it, and how strictly to run it."""

    django: str
    pythons: tuple
    # Django 6.1: check and migrate with deprecation warnings as errors (SPEC §8).
    strict: bool


RELEASES = [
    pytest.param(Release("5.2", ("3.11",), strict=False), id="django5.2"),
    # Django 6 needs Python 3.12+: the newest found, so both ends of 3.11-3.13 are run.
    pytest.param(Release("6.1", ("3.13", "3.12"), strict=True), id="django6.1"),
]


@pytest.fixture(scope="session")
def wheel(tmp_path_factory):
    """This checkout's wheel, as `pip wheel .` makes it."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@dataclass
class HostVenv:
    release: Release
    path: Path


@pytest.fixture(scope="session", params=RELEASES)
def host(request, wheel):
    """A fresh virtualenv with the wheel and one supported Django release installed."""
    release = request.param
    python = require_python(release.pythons, release.django)
    return HostVenv(release, host_venv(wheel, release.django, python))
