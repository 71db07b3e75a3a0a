"""The release: the README as the package index shows it, the sdist and the wheel that
`python -m build` makes (make dist), and their metadata, checked by `twine check --strict`.

The README is the long description: on the package index a relative link or image has
nothing to point at, so every target is absolute, and every absolute link into this
repository names a file (and a heading) that exists in this checkout.
"""

import os
import sys
import tarfile
import zipfile
from email.parser import Parser

import pytest

import djangofeeds
from tests.support.host_env import REPO, run, source_copy
from tests.support.markdown import (
    REPOSITORY,
    broken_repository_link,
    github_slug,
    heading_anchors,
    is_relative,
    link_targets,
)


def test_the_link_checker_finds_every_kind_of_relative_target():
    """The README check's parser: markdown links, images, reference definitions and html
    attributes are found; code spans and fenced code are not links."""
    text = "\n".join(
        [
            "See [the docs](docs/a.md#x), ![a picture](docs/p.png 'title'),",
            "[![badge](img/b.svg)](https://example.com/) and <https://example.com/auto>.",
            '<img src="docs/s.png" alt=""> <a href=\'CHANGELOG.md\'>log</a>',
            "[ref]: docs/ref.md",
            "`[not](a-link.md)` and",
            "```python",
            "x = [1](2)",
            "```",
            "[Absolute](https://github.com/) [Mail](mailto:a@example.com) [In page](#top)",
        ]
    )
    targets = link_targets(text)
    assert [t for t in targets if is_relative(t)] == [
        "docs/a.md#x",
        "docs/p.png",
        "img/b.svg",
        "#top",
        "docs/ref.md",
        "docs/s.png",
        "CHANGELOG.md",
    ]
    assert "a-link.md" not in targets and "2" not in targets


def test_github_slugs():
    """GitHub's anchors of headings like the docs' own."""
    assert github_slug("Running the site (make run)") == "running-the-site-make-run"
    assert github_slug("URLs: mounting") == "urls-mounting"
    assert github_slug("Spam backends: `BLOG_SPAM_BACKEND`") == "spam-backends-blog_spam_backend"
    assert github_slug("At most `DJANGOFEEDS_MAX_PER_HOST` fetches per host") == (
        "at-most-djangofeeds_max_per_host-fetches-per-host"
    )
    assert heading_anchors("# A\n```sh\n# A\n```\n## A\n### B #\n") == {"a", "a-1", "b"}


def test_readme_links_and_images_are_absolute():
    """The README renders on the package index: no link or image target is relative."""
    targets = link_targets((REPO / "README.md").read_text())
    assert targets, "no links found in README.md: the parser is broken"
    relative = [t for t in targets if is_relative(t)]
    assert relative == [], f"relative targets in README.md (make them absolute): {relative}"


@pytest.mark.parametrize(
    "document",
    ["README.md", *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md"))],
)
def test_links_into_the_repository_exist(document):
    """Every absolute link into this repository (blob/main/<path>, raw.githubusercontent.com
    /.../main/<path>, tree/main/<folder>) names a file of this checkout, and an #anchor
    into a .md file names one of its headings."""
    targets = link_targets((REPO / document).read_text())
    broken = [why for target in targets if (why := broken_repository_link(target))]
    assert broken == [], "\n".join(broken)


# The release built by `python -m build`, as make dist does (once per session: it takes
# seconds, from a copy of the checkout, which gets no build/ nor *.egg-info/).


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """The sdist and the wheel `python -m build` makes from a copy of this checkout."""
    workdir = tmp_path_factory.mktemp("release")
    source = source_copy(workdir / "source")
    # What a checkout has and the archives must not (source_copy leaves bytecode out).
    stray = source / "djangofeeds" / "__pycache__" / "conf.cpython-311.pyc"
    stray.parent.mkdir()
    stray.write_bytes(b"bytecode")
    dist = workdir / "dist"
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1764115200"}
    run([sys.executable, "-m", "build", "--outdir", dist, source], what="python -m build", env=env)
    sdists, wheels = list(dist.glob("*.tar.gz")), list(dist.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(p.name for p in dist.iterdir())
    return sdists[0], wheels[0]


def sdist_files(sdist):
    """The sdist's files, without its top folder (djangofeeds_blog-<version>/)."""
    with tarfile.open(sdist) as archive:
        names = [m.name for m in archive.getmembers() if m.isfile()]
    return {name.split("/", 1)[1] for name in names}


def sdist_metadata(sdist):
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        return Parser().parsestr(archive.extractfile(f"{top}/PKG-INFO").read().decode())


def wheel_metadata(wheel):
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(archive.read(name).decode())


@pytest.mark.host
@pytest.mark.timeout(900)
def test_sdist_and_wheel_pass_twine_check_strict(release):
    """`twine check --strict`: the metadata is valid and the README renders."""
    result = run([sys.executable, "-m", "twine", "check", "--strict", *release], what="twine check")
    assert result.stdout.count("PASSED") == 2, result.stdout + result.stderr


@pytest.mark.host
@pytest.mark.timeout(900)
def test_sdist_and_wheel_declare_license_authors_urls_and_status(release):
    """Both archives declare the BSD-3-Clause license (PEP 639: an SPDX expression and the
    file, no License classifier), the authors, the project's URLs and its Beta status."""
    sdist, wheel = release
    for metadata in (sdist_metadata(sdist), wheel_metadata(wheel)):
        assert metadata["Version"] == djangofeeds.__version__
        assert metadata["License-Expression"] == "BSD-3-Clause"
        assert metadata.get_all("License-File") == ["LICENSE"]
        assert metadata["Author"] == "The djangofeeds-blog authors"
        urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL"))
        home = f"https://github.com/{REPOSITORY}"
        assert urls == {
            "Homepage": home,
            "Documentation": f"{home}/tree/main/docs",
            "Source": home,
            "Issues": f"{home}/issues",
            "Changelog": f"{home}/blob/main/CHANGELOG.md",
        }
        classifiers = metadata.get_all("Classifier")
        assert "Development Status :: 4 - Beta" in classifiers
        assert not [c for c in classifiers if c.startswith("License ::")]
        assert metadata["Description-Content-Type"] == "text/markdown"
        assert metadata.get_payload().strip() == (REPO / "README.md").read_text().strip()


@pytest.mark.host
@pytest.mark.timeout(900)
def test_sdist_holds_the_source_of_the_release_and_nothing_else(release):
    """The sdist: pyproject.toml, the license, README, changelog, the docs, the two apps
    whole (templates, locale, migrations) and the package they share; not the tests (they
    need this repository's site and services: they run from a checkout), the site,
    virtualenvs, caches or var/."""
    files = sdist_files(release[0])
    assert {f for f in files if "/" not in f} == {
        "LICENSE",
        "README.md",
        "CHANGELOG.md",
        "pyproject.toml",
        "MANIFEST.in",
        "mkdocs.yml",
        "PKG-INFO",
        "setup.cfg",  # setuptools' own (egg_info options), written into every sdist
    }
    folders = {f.split("/")[0] for f in files if "/" in f}
    assert folders == {
        "djangofeeds",
        "blog",
        "djangofeeds_blog_shared",
        "docs",
        "djangofeeds_blog.egg-info",
    }
    assert {
        "docs/index.md",
        "docs/screenshots/home.png",
        "djangofeeds/migrations/0001_initial.py",
        "djangofeeds/locale/fr/LC_MESSAGES/django.po",
        "djangofeeds/templates/djangofeeds/base.html",
        "blog/migrations/0001_initial.py",
        "blog/locale/fr/LC_MESSAGES/django.po",
        "blog/templates/blog/entry_detail.html",
    } <= files
    assert not [f for f in files if f.startswith(".") or "/." in f], "hidden files in the sdist"
    assert not [f for f in files if "__pycache__" in f or f.endswith((".pyc", ".pyo"))]
    for app in ("djangofeeds", "blog", "djangofeeds_blog_shared"):
        source = {
            p.relative_to(REPO).as_posix()
            for p in (REPO / app).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith(".")
        }
        assert source - files == set(), f"files of {app}/ missing from the sdist"


@pytest.mark.host
@pytest.mark.timeout(900)
def test_wheel_holds_the_two_apps_and_the_license(release):
    """The wheel: the packages djangofeeds/, blog/ and djangofeeds_blog_shared/ (what both
    apps import), and dist-info with the LICENSE."""
    with zipfile.ZipFile(release[1]) as archive:
        files = set(archive.namelist())
        dist_info = next(n.split("/")[0] for n in files if n.endswith(".dist-info/METADATA"))
        license_text = archive.read(f"{dist_info}/licenses/LICENSE").decode()
    assert {name.split("/")[0] for name in files} == {
        "djangofeeds",
        "blog",
        "djangofeeds_blog_shared",
        dist_info,
    }
    assert not [f for f in files if "__pycache__" in f or f.endswith((".pyc", ".pyo"))]
    for folder in ("templates", "locale", "migrations"):
        assert any(f.startswith(f"djangofeeds/{folder}/") for f in files), folder
        assert any(f.startswith(f"blog/{folder}/") for f in files), folder
    assert license_text == (REPO / "LICENSE").read_text()
    assert "BSD 3-Clause License" in license_text
