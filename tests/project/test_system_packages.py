"""``.ci/system-packages``: the step ``make test`` and ``.ci/run`` share on a fresh machine.

Installing real packages cannot happen in a test: ``apt-get`` is a stand-in
that records how it was called. Everything else is the real script, run by
bash with a PATH that lacks memcached, as root and as an ordinary user.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from django.conf import settings

SCRIPT = Path(settings.BASE_DIR) / ".ci" / "system-packages"
RECORDING_APT_GET = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/apt-get.calls"
"""


# What building mysqlclient (the MariaDB driver) needs: their programs tell they are there.
MARIADB_BUILD = ("gcc", "pkg-config", "mariadb_config")


@pytest.fixture
def fresh_machine():
    """A bin folder with the tools the script uses and all it checks for but memcached."""
    folder = Path(tempfile.mkdtemp(prefix="system-packages-"))
    folder.chmod(0o777)  # the ordinary user's stand-in apt-get must be able to record too
    programs = ("id", "dirname", "basename", "sh", "redis-server", "chromium", "nginx", "openssl")
    programs += MARIADB_BUILD
    for program in programs:
        found = shutil.which(program)
        assert found, program
        (folder / program).symlink_to(found)
    (folder / "python3").symlink_to(os.path.realpath(sys.executable))  # with its venv module
    apt_get = folder / "apt-get"
    apt_get.write_text(RECORDING_APT_GET)
    apt_get.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


def run_script(folder, *args, as_user=None):
    prefix = (
        [shutil.which("setpriv"), "--reuid", as_user, "--regid", as_user, "--clear-groups"]
        if as_user
        else []
    )
    return subprocess.run(
        [*prefix, shutil.which("bash"), str(SCRIPT), *args],
        env={"PATH": str(folder), "HOME": "/"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def apt_get_calls(folder):
    calls = folder / "apt-get.calls"
    return calls.read_text().splitlines() if calls.exists() else []


@pytest.mark.skipif(os.geteuid() != 0, reason="installing is what root does; CI runs as root")
def test_root_installs_what_is_missing(fresh_machine):
    """As root, the missing package is installed with apt-get, after an update."""
    result = run_script(fresh_machine)
    assert result.returncode == 0, result.stderr
    assert apt_get_calls(fresh_machine) == ["update -qq", "install -y -qq memcached"]
    assert "Installing missing system packages: memcached" in result.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run as another user")
def test_ordinary_user_gets_the_one_command_to_run(fresh_machine):
    """Not root: nothing is installed, the one apt-get command is printed, and it fails."""
    result = run_script(fresh_machine, as_user="65534")
    assert result.returncode == 1
    assert apt_get_calls(fresh_machine) == []
    assert "sudo apt-get update && sudo apt-get install -y memcached" in result.stderr


def test_ci_asks_for_its_own_tools_too(fresh_machine):
    """--ci adds what .ci/run itself runs (pg_isready, make, RabbitMQ) to make test's list."""
    result = run_script(fresh_machine, "--ci", as_user=None if os.geteuid() else "65534")
    assert "memcached postgresql-client make" in result.stderr + result.stdout + "".join(
        apt_get_calls(fresh_machine)
    )


def test_nothing_missing_installs_nothing(fresh_machine):
    """With every program present the step is silent and apt-get is never called."""
    (fresh_machine / "memcached").symlink_to(shutil.which("memcached"))
    result = run_script(fresh_machine)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert apt_get_calls(fresh_machine) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="installing is what root does; CI runs as root")
def test_a_machine_without_the_mariadb_connector_gets_it_to_build_the_driver(fresh_machine):
    """No compiler, pkg-config nor MariaDB Connector/C: all are installed, so mysqlclient builds."""
    (fresh_machine / "memcached").symlink_to(shutil.which("memcached"))
    for program in MARIADB_BUILD:
        (fresh_machine / program).unlink()
    result = run_script(fresh_machine)
    assert result.returncode == 0, result.stderr
    assert apt_get_calls(fresh_machine) == [
        "update -qq",
        "install -y -qq gcc pkg-config libmariadb-dev",
    ]
