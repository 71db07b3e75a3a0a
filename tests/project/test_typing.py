"""The apps' typed API: each ships ``py.typed``, and mypy (django-stubs) passes on it.

pyproject.toml's ``[tool.mypy]`` lists the typed modules and requires every
function in them to be annotated (``disallow_untyped_defs``): a lost annotation
fails ``test_typecheck_passes``.
"""

import subprocess
import sys
import tomllib
import types
import typing
from pathlib import Path

import pytest

from blog import conf as blog_conf
from djangofeeds import conf as djangofeeds_conf

REPO = Path(__file__).resolve().parents[2]


def tool_config():
    with (REPO / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)["tool"]


def conforms(value, hint):
    """Whether ``value`` is of the annotation ``hint`` (outer type only: no element types)."""
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        return any(conforms(value, arg) for arg in typing.get_args(hint))
    return isinstance(value, typing.get_origin(hint) or hint)


@pytest.mark.parametrize("app", ["djangofeeds", "blog"])
def test_py_typed_marks_each_app_and_is_packaged(app):
    """Each app has the PEP 561 marker, and the wheel's package data carries it."""
    assert (REPO / app / "py.typed").is_file()
    assert "py.typed" in tool_config()["setuptools"]["package-data"][app]


def test_typed_modules_must_annotate_every_function():
    """Every module mypy checks is one whose functions must all carry annotations."""
    mypy = tool_config()["mypy"]
    strict = [o for o in mypy["overrides"] if o.get("disallow_untyped_defs")]
    files = {
        f.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for f in mypy["files"]
    }
    assert len(strict) == 1
    assert files == set(strict[0]["module"])


@pytest.mark.parametrize("conf", [djangofeeds_conf, blog_conf], ids=["djangofeeds", "blog"])
def test_conf_types_every_setting_and_its_default_conforms(conf):
    """Each setting with a default has an annotation in its conf module, and the default
    is of that type."""
    hints = typing.get_type_hints(conf)
    assert set(hints) == set(conf.DEFAULTS)
    wrong = {
        name: hints[name]
        for name, value in conf.DEFAULTS.items()
        if not conforms(value, hints[name])
    }
    assert not wrong


@pytest.mark.serial
def test_typecheck_passes(tmp_path):
    """``make typecheck`` (mypy with django-stubs, from a fresh cache) reports no error."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy")],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
