"""The wheel `pip wheel .` makes: what it holds, what it declares, the version it reports."""

import subprocess
import sys
import zipfile
from email.parser import Parser

import pytest

import blog
import djangofeeds
import djangofeeds_blog_shared
from tests.support.host_env import REPO

pytestmark = [pytest.mark.host, pytest.mark.timeout(900)]

APPS = ("djangofeeds", "blog")
# The apps and the package both import (not an app): what the wheel installs.
PACKAGES = (*APPS, "djangofeeds_blog_shared")
OPTIONAL = {"pymemcache", "akismet", "django-celery-beat", "django-celery-results"}
EXTRAS = {"memcached", "akismet", "results", "mysql", "postgres"}
# Libraries whose releases cap Django below a line we support: never in an extra,
# since installing the extra would make pip downgrade the host's Django.
CAPS_DJANGO = {"django-celery-beat"}


def wheel_files(wheel):
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def wheel_metadata(wheel):
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(archive.read(name).decode())


def package_files():
    """Every file of the packages' folders in this checkout, as wheel paths (no bytecode)."""
    return {
        path.relative_to(REPO).as_posix()
        for package in PACKAGES
        for path in (REPO / package).rglob("*")
        if path.is_file()
        and not any(part == "__pycache__" or part.startswith(".") for part in path.parts[-3:])
    }


def test_wheel_holds_the_two_apps_whole_and_nothing_else(wheel):
    """The wheel has every file of djangofeeds/ and blog/ (migrations, templates, static,
    locale, commands) and of the package both share, djangofeeds_blog_shared/ (py.typed
    too), and, besides its metadata, nothing else: no project/, tests/, bench/,
    localservers/ (the servers the tests and benchmarks share)."""
    files = wheel_files(wheel)
    top = {name.split("/")[0] for name in files}
    assert {t for t in top if not t.endswith(".dist-info")} == set(PACKAGES)
    assert not top & {"project", "tests", "bench", "localservers"}
    assert package_files() - files == set(), "files of the packages missing from the wheel"
    assert {f for f in files if f.split("/")[0] in PACKAGES} == package_files()
    assert "djangofeeds_blog_shared/py.typed" in files
    assert "djangofeeds/migrations/0001_initial.py" in files
    assert "blog/templates/blog/entry_detail.html" in files


def test_wheel_declares_minimum_versions_and_extras(wheel):
    """Base requirements are minimums, never pins, and leave out what only some hosts use;
    those are extras. The version is djangofeeds_blog_shared.__version__ (which both apps
    re-export), Python 3.11 or newer."""
    metadata = wheel_metadata(wheel)
    base = [r for r in metadata.get_all("Requires-Dist") if "extra ==" not in r]
    names = {r.split(">")[0].split("[")[0].strip().lower() for r in base}
    assert {"django", "celery", "feedparser", "httpx", "nh3", "defusedxml"} <= names
    assert not names & OPTIONAL, f"optional libraries in the base requirements: {names & OPTIONAL}"
    assert all(">=" in r and "==" not in r for r in base), base
    assert set(metadata.get_all("Provides-Extra")) >= EXTRAS
    extras = [r for r in metadata.get_all("Requires-Dist") if "extra ==" in r]
    in_extras = {r.split(">")[0].split("[")[0].split(";")[0].strip().lower() for r in extras}
    assert not in_extras & ({"django"} | CAPS_DJANGO), extras  # no extra changes Django
    assert metadata["Version"] == djangofeeds_blog_shared.__version__
    assert metadata["Requires-Python"] == ">=3.11"


def test_changelog_has_the_current_version():
    """CHANGELOG.md has a dated section for the version being built."""
    changelog = (REPO / "CHANGELOG.md").read_text()
    assert f"## [{djangofeeds.__version__}] - " in changelog


def test_blog_version_in_a_source_checkout_is_djangofeeds_version():
    """Run from this checkout, both apps report the one version the shared package holds."""
    version = djangofeeds_blog_shared.__version__
    assert blog.__version__ == djangofeeds.__version__ == version


def test_installed_blog_reports_the_wheel_version_without_djangofeeds(host, wheel):
    """Installed from the wheel, blog.__version__ is the distribution's version, read
    without importing djangofeeds; djangofeeds.__version__ is the same number."""
    code = (
        "import sys, blog; v = blog.__version__; imported = 'djangofeeds' in sys.modules; "
        "import djangofeeds; print(v, djangofeeds.__version__, imported)"
    )
    python = host.path / "bin" / "python"
    result = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    version = wheel_metadata(wheel)["Version"]
    assert result.stdout.split() == [version, version, "False"], result.stdout + result.stderr
    assert sys.executable != str(python)
