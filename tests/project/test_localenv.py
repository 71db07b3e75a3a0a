"""``.env.local``: what make run writes into it, and what it tells about the shell."""

from project import localenv


def test_make_run_completes_an_env_file_without_touching_what_is_there(tmp_path, monkeypatch):
    """Missing development defaults are added; the developer's own lines stay as written."""
    env_file = tmp_path / ".env.local"
    env_file.write_text("DATABASE_URL=postgres://me@127.0.0.1/mine\nDJANGO_DEBUG=0\n")
    monkeypatch.setenv("DJANGO_ENV_FILE", str(env_file))

    assert localenv.ensure_dev_file() == env_file
    values = localenv.dotenv_values(env_file)
    assert values["DATABASE_URL"] == "postgres://me@127.0.0.1/mine"
    assert values["DJANGO_DEBUG"] == "0"  # the developer's choice, not overwritten
    assert values["DJANGOFEEDS_ALLOW_PRIVATE_HOSTS"] == "1"
    assert len(values["DJANGO_SECRET_KEY"]) >= 50

    localenv.ensure_dev_file()  # a second make run changes nothing
    assert localenv.dotenv_values(env_file) == values


def test_a_new_env_file_is_private_and_explains_itself(tmp_path, monkeypatch):
    """A fresh file is readable by its owner only (a secret key) and says what it is."""
    env_file = tmp_path / ".env.local"
    monkeypatch.setenv("DJANGO_ENV_FILE", str(env_file))
    localenv.ensure_dev_file()
    assert env_file.stat().st_mode & 0o777 == 0o600
    assert env_file.read_text().startswith("# Development settings of this checkout")
    other = tmp_path / "other"
    monkeypatch.setenv("DJANGO_ENV_FILE", str(other))
    localenv.ensure_dev_file()
    secrets = {localenv.dotenv_values(f)["DJANGO_SECRET_KEY"] for f in (env_file, other)}
    assert len(secrets) == 2  # generated per checkout


def test_no_env_file_when_the_variable_is_empty(monkeypatch):
    """DJANGO_ENV_FILE="" turns the file off: nothing is read or written."""
    monkeypatch.setenv("DJANGO_ENV_FILE", "")
    assert localenv.path() is None
    assert localenv.ensure_dev_file() is None


def test_settings_exported_but_not_in_the_file_are_named(tmp_path, monkeypatch):
    """make run names the exported settings another terminal would not get."""
    env_file = tmp_path / ".env.local"
    env_file.write_text("DJANGO_DEBUG=1\nCELERY_BROKER_URL=redis://127.0.0.1:6379/3\n")
    for name in list(localenv.os.environ):
        if name in localenv.NAMES or name.startswith(localenv.PREFIXES):
            monkeypatch.delenv(name)
    monkeypatch.setenv("DJANGO_DEBUG", "1")  # same as the file: fine
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/4")  # differs
    monkeypatch.setenv("AKISMET_API_KEY", "k")  # not in the file
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "project.settings")  # not a setting
    monkeypatch.setenv("EDITOR", "vi")  # not the project's
    assert localenv.exported_but_not_in_file(env_file) == ["AKISMET_API_KEY", "CELERY_BROKER_URL"]
