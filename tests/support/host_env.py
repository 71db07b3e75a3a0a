"""The wheel of this checkout, the Pythons that can run it, and a virtualenv per Django release.

The host-project tests install the wheel the way a developer would, into fresh
virtualenvs; building one costs tens of seconds, so a venv is kept under the
system's temporary folder, keyed by the wheel's hash, the Django release and the
interpreter, and reused by the next run of the same wheel (CI's three passes).
"""

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VENV_CACHE = Path(tempfile.gettempdir()) / "djangofeeds-host-venvs"
# A venv nobody used for this long belongs to an old wheel: removed.
VENV_MAX_AGE = 24 * 3600
# What a source tree holds that is no input of the build (secrets in .env*, caches, venvs).
NOT_SOURCE = {"var", "build", "dist", "staticfiles", "node_modules", "__pycache__", "db.sqlite3"}


def log(message):
    """A line of the host tests' progress and timing (shown with -s, and on failure)."""
    print(f"[host] {message}", flush=True)


def run(argv, *, what, timeout=600, **options):
    """Run argv; a non-zero exit fails with what was being done and the command's output."""
    started = time.monotonic()
    result = subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, **options
    )
    log(f"{what}: {time.monotonic() - started:.1f}s")
    if result.returncode != 0:
        raise AssertionError(
            f"{what} failed (exit {result.returncode}): {' '.join(map(str, argv))}\n"
            f"{result.stdout[-4000:]}\n{result.stderr[-6000:]}"
        )
    return result


def python_version_of(executable):
    """'3.12' for a working interpreter, None for a missing or broken one (a pyenv shim)."""
    try:
        result = subprocess.run(
            [executable, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def find_python(version):
    """A Python ``version`` ('3.12'): the newest ~/.pyenv/versions/<version>.N, else PATH's."""
    candidates = []
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        pattern = re.compile(rf"^{re.escape(version)}\.(\d+)$")
        patches = [(int(m[1]), d) for d in pyenv.iterdir() if (m := pattern.match(d.name))]
        candidates += [d / "bin" / "python" for _, d in sorted(patches, reverse=True)]
    candidates += [shutil.which(f"python{version}")]
    for candidate in filter(None, candidates):
        if python_version_of(candidate) == version:
            return Path(candidate)
    return None


def require_python(versions, django):
    """The first Python of ``versions`` found; missing: a failure on CI, a skip elsewhere."""
    for version in versions:
        if executable := find_python(version):
            return executable
    message = (
        f"Django {django} needs Python {' or '.join(versions)}: none under "
        f"~/.pyenv/versions/ nor on PATH (e.g. `pyenv install {versions[0]}`)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def source_copy(destination):
    """This checkout's files, without what is not source: `pip wheel` writes build/ and
    *.egg-info/ into the tree it builds, so it builds a copy, never the checkout."""

    def ignored(folder, names):
        return [
            name
            for name in names
            if name.startswith(".") or name in NOT_SOURCE or name.endswith((".pyc", ".whl"))
        ]

    shutil.copytree(REPO, destination, ignore=ignored)
    return destination


def build_wheel(workdir):
    """`pip wheel .` of a copy of this checkout: the path of the one wheel it makes."""
    source = source_copy(workdir / "source")
    dist = workdir / "dist"
    # A fixed date in the archive: the same source gives the same wheel, and so the same venvs.
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1764115200"}
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", dist, source]
    run(argv, what="pip wheel .", env=env)
    wheels = list(dist.glob("*.whl"))
    assert len(wheels) == 1, f"pip wheel . made {[w.name for w in wheels]}, not one wheel"
    return wheels[0]


def file_hash(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def prune_old_venvs():
    """Venvs of wheels not used for a day (another branch's, an older commit's)."""
    if not VENV_CACHE.is_dir():
        return
    for venv in VENV_CACHE.iterdir():
        with contextlib.suppress(OSError):
            if time.time() - venv.stat().st_mtime > VENV_MAX_AGE:
                shutil.rmtree(venv, ignore_errors=True)


@contextlib.contextmanager
def locked(path):
    """An exclusive lock on ``path`` (a file): two test sessions never build one venv at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def host_venv(wheel, django, python):
    """A virtualenv on ``python`` with the wheel and ``Django=={django}.*`` installed, as a
    developer would: ``pip install <wheel> "Django==6.1.*"``. Its folder, reused when cached."""
    prune_old_venvs()
    python_version = python_version_of(python)
    venv = VENV_CACHE / f"{file_hash(wheel)[:16]}-django{django}-py{python_version}"
    stamp = venv / ".installed"
    with locked(VENV_CACHE / f"{venv.name}.lock"):
        if stamp.exists():
            log(f"venv Django {django}, Python {python_version}: cached in {venv}")
        else:
            shutil.rmtree(venv, ignore_errors=True)
            run([python, "-m", "venv", venv], what=f"venv on Python {python_version}")
            run(
                [
                    venv / "bin/python",
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    wheel,
                    f"Django=={django}.*",
                ],
                what=f"pip install {wheel.name} Django=={django}.*",
            )
            stamp.write_text(f"{wheel.name} Django {django} Python {python_version}\n")
        os.utime(venv)  # used now: not pruned while in use
    return venv
