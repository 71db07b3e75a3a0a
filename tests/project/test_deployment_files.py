"""docker-compose.yml, the Dockerfile and the docs agree with the code they describe.

Docker cannot run here, so these read the files and check every name they use
against what exists: modules, commands, queues, settings.
"""

import importlib
import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml
from django.conf import global_settings, settings
from django.core.management import get_commands

from project import settings as project_settings
from project.celery import app as celery_app

BASE = Path(settings.BASE_DIR)
WORKER_SERVICES = ("worker-feeds", "worker")
APP_SERVICES = ("migrate", "web", *WORKER_SERVICES, "beat")
# The project's queue names (the test settings rename them on RabbitMQ).
QUEUES = {queue.name for queue in project_settings.CELERY_TASK_QUEUES}


def settings_variables():
    """Every environment variable project/settings.py reads (with env.py and localenv.py)."""
    source = "".join(
        (BASE / "project" / name).read_text() for name in ("settings.py", "env.py", "localenv.py")
    )
    return set(
        re.findall(
            r'(?:env_(?:str|bool|int|list|networks)|environ\.get)\(\s*"([A-Z0-9_]+)"', source
        )
    )


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((BASE / "docker-compose.yml").read_text())


def test_settings_variables_are_found():
    """The scan sees the variables of SPEC §3 (so the checks below are not vacuous)."""
    assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "MEMCACHED_LOCATION"} <= (
        settings_variables()
    )


def test_compose_has_every_service(compose):
    """postgres, redis, memcached, web, both worker services and beat are all there."""
    assert {"postgres", "redis", "memcached", *APP_SERVICES} <= set(compose["services"])


def test_compose_app_services_share_one_image(compose):
    """web, the workers, beat and migrate run the same image, built from the Dockerfile."""
    images = {compose["services"][name]["image"] for name in APP_SERVICES}
    builds = {compose["services"][name]["build"] for name in APP_SERVICES}
    assert len(images) == 1
    assert builds == {"."}
    assert (BASE / "Dockerfile").exists()


def test_compose_memcached_never_evicts(compose):
    """memcached runs with -M, so a lock key cannot be evicted under memory pressure."""
    assert "-M" in compose["services"]["memcached"]["command"]


def test_compose_environment_names_are_settings(compose):
    """Every variable given to the app is one the settings read (no typos, no dead names)."""
    known = settings_variables()
    for name in APP_SERVICES:
        environment = compose["services"][name]["environment"]
        assert set(environment) <= known, set(environment) - known
        assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "MEMCACHED_LOCATION"} <= (
            set(environment)
        )


def test_compose_urls_point_at_compose_services(compose):
    """The database, broker and cache URLs name services that exist in the file."""
    environment = compose["services"]["web"]["environment"]
    assert "@postgres:5432/" in environment["DATABASE_URL"]
    assert environment["CELERY_BROKER_URL"].startswith("redis://redis:")
    assert environment["MEMCACHED_LOCATION"].startswith("memcached:")


def command_of(service):
    command = service["command"]
    return shlex.split(command) if isinstance(command, str) else command


def test_compose_web_runs_the_wsgi_application(compose):
    """gunicorn is given a module and attribute that exist."""
    command = command_of(compose["services"]["web"])
    assert command[0] == "gunicorn"
    module, attribute = command[1].split(":")
    assert callable(getattr(importlib.import_module(module), attribute))


def worker_queues(compose, name):
    command = command_of(compose["services"][name])
    assert command[:4] == ["celery", "-A", "project", "worker"], name
    return command[command.index("-Q") + 1].split(",")


def test_compose_workers_split_feeds_from_spam(compose):
    """Imports (and the beat tick) have a worker service of their own, apart from spam checks,
    hipri and the default queue: a burst of imports never delays a spam check."""
    assert sorted(worker_queues(compose, "worker-feeds")) == ["feeds", "scheduler"]
    assert sorted(worker_queues(compose, "worker")) == ["celery", "hipri", "spam"]


def test_compose_feed_workers_run_several_processes_per_core(compose):
    """worker-feeds sets its concurrency from FEEDS_WORKER_CONCURRENCY, by default 16 processes
    (8 per core on 2 cores): imports wait on the network, and a dead feed holds a process."""
    command = command_of(compose["services"]["worker-feeds"])
    value = command[command.index("--concurrency") + 1]
    match = re.fullmatch(r"\$\{FEEDS_WORKER_CONCURRENCY:-(\d+)\}", value)
    assert match and int(match[1]) >= 16


def test_compose_every_queue_has_exactly_one_worker_service(compose):
    """Each queue the settings declare, and each queue a task is routed to, is consumed by
    exactly one worker service."""
    consumers = {}
    for name in WORKER_SERVICES:
        for queue in worker_queues(compose, name):
            consumers.setdefault(queue, []).append(name)
    assert all(len(services) == 1 for services in consumers.values()), consumers
    routed = {
        route["queue"] for route in project_settings.CELERY_TASK_ROUTES.values() if "queue" in route
    }
    assert QUEUES | routed <= set(consumers), (QUEUES | routed) - set(consumers)
    assert set(consumers) == QUEUES


def test_compose_beat_tick_reaches_the_feeds_worker_service(compose):
    """The tick djangofeeds.tasks.refresh_feeds is routed to a queue worker-feeds consumes."""
    route = celery_app.amqp.router.route({}, "djangofeeds.tasks.refresh_feeds")
    queue = route["queue"].name.removesuffix(settings.TEST_QUEUE_SUFFIX)
    assert queue in worker_queues(compose, "worker-feeds")


def test_compose_workers_scale_and_beat_does_not(compose):
    """Workers can run as many copies as --scale asks (no fixed container name, no host
    port); beat is one replica, and publishes no port either."""
    for name in (*WORKER_SERVICES, "beat"):
        service = compose["services"][name]
        assert "container_name" not in service, name
        assert "ports" not in service, name
    assert compose["services"]["beat"]["deploy"]["replicas"] == 1
    assert "deploy" not in compose["services"]["worker-feeds"]


@pytest.mark.beat
def test_compose_beat_and_migrate_commands_exist(compose):
    """beat runs the project's app (scheduler from settings); the migrate service runs
    manage.py migrate, then setup_schedules (beat's entries), both existing commands."""
    assert command_of(compose["services"]["beat"])[:4] == ["celery", "-A", "project", "beat"]
    importlib.import_module(settings.CELERY_BEAT_SCHEDULER.split(":")[0])
    shell = command_of(compose["services"]["migrate"])
    assert shell[:2] == ["sh", "-c"]
    steps = [shlex.split(step) for step in shell[2].split("&&")]
    assert [step[:3] for step in steps] == [
        ["python", "manage.py", "migrate"],
        ["python", "manage.py", "setup_schedules"],
    ]
    assert all(step[2] in get_commands() for step in steps)


def test_compose_restarts_every_long_running_service(compose):
    """A service whose process dies comes back (issue 43); the one-shot migrate does not run
    again once it has finished."""
    for name in ("postgres", "redis", "memcached", "web", *WORKER_SERVICES, "beat"):
        assert compose["services"][name].get("restart") == "unless-stopped", name
    assert compose["services"]["migrate"]["restart"] == "no"


def test_compose_healthchecks(compose):
    """Services that can answer have a healthcheck; web's probes the health URL."""
    for name in ("postgres", "redis", "memcached", "web", *WORKER_SERVICES):
        assert "healthcheck" in compose["services"][name], name
    web_check = " ".join(compose["services"]["web"]["healthcheck"]["test"])
    assert "/healthz" in web_check
    for name in WORKER_SERVICES:  # the check a worker waits on at start, and a ping
        worker_check = " ".join(compose["services"][name]["healthcheck"]["test"])
        assert "python -m project.workercheck celery@$$HOSTNAME" in worker_check  # compose: $$ is $
    assert any(re.fullmatch(pattern, "healthz") for pattern in settings.SECURE_REDIRECT_EXEMPT)


def test_web_runs_gunicorn_on_the_shipped_config(compose):
    """web (and the image's own command) run gunicorn with deploy/gunicorn.conf.py, whose
    logger class exists; the proxy's upstream is the port it binds."""
    command = command_of(compose["services"]["web"])
    config = command[command.index("--config") + 1]
    values = {}
    exec((BASE / config).read_text(), values)  # gunicorn reads it the same way
    module, _, name = values["logger_class"].rpartition(".")
    assert getattr(importlib.import_module(module), name)
    port = values["bind"].rpartition(":")[2]
    assert compose["services"]["proxy"]["environment"]["WEB_ADDRESS"] == f"web:{port}"
    assert f"CMD {json.dumps(command)}" in (BASE / "Dockerfile").read_text()


def test_compose_proxy_fills_in_every_template_variable(compose):
    """proxy mounts deploy/nginx/templates where the nginx image reads templates, and sets
    every ${NAME} they use; deploy/tls/ (the certificate) is mounted where tls/on.conf reads."""
    proxy = compose["services"]["proxy"]
    templates = (BASE / "deploy" / "nginx" / "templates").rglob("*.template")
    used = {name for path in templates for name in re.findall(r"\$\{([A-Z_]+)\}", path.read_text())}
    assert used == set(proxy["environment"])
    assert "./deploy/nginx/templates:/etc/nginx/templates:ro" in proxy["volumes"]
    assert "./deploy/tls:/etc/nginx/tls:ro" in proxy["volumes"]


def test_proxy_body_cap_is_the_largest_body_the_site_reads():
    """nginx refuses bodies over the larger of a WebSub push's cap and a form's: each is read
    whole by the view behind it, anything bigger would be refused there anyway."""
    template = (BASE / "deploy" / "nginx" / "templates" / "default.conf.template").read_text()
    megabytes = int(re.search(r"^client_max_body_size (\d+)m;", template, re.MULTILINE)[1])
    largest = max(
        project_settings.DJANGOFEEDS_MAX_BYTES, global_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    )
    assert not hasattr(project_settings, "DATA_UPLOAD_MAX_MEMORY_SIZE")  # Django's default
    assert megabytes * 1024 * 1024 == largest


def test_dockerfile_matches_python_and_requirements():
    """The image uses the project's Python and installs the pinned requirements."""
    dockerfile = (BASE / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11", dockerfile, re.MULTILINE)
    assert "pip install -r requirements.txt" in dockerfile
    assert "collectstatic" in dockerfile


def documented_environment_variables():
    """The variables of docs/configuration.md's "Environment variables" table."""
    page = (BASE / "docs" / "configuration.md").read_text()
    section = page.split("\n## Environment variables\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([A-Z0-9_]+)`", section, re.MULTILINE))


def test_docs_configuration_table_lists_every_variable():
    """docs/configuration.md's environment table and the settings name the same variables."""
    assert documented_environment_variables() == settings_variables()


def test_requirements_are_pinned():
    """Every requirement is pinned to one version."""
    for name in (
        "requirements.txt",
        "requirements-common.txt",
        "requirements-dev.txt",
        "requirements-test.txt",
        "requirements-django61.txt",
    ):
        for line in (BASE / name).read_text().splitlines():
            line = line.split("#")[0].strip()
            if line and not line.startswith("-r "):
                assert "==" in line, f"{name}: {line} is not pinned"


def test_local_env_file_is_never_committed_nor_built_into_the_image():
    """make run's .env.local (a secret key, DEBUG on) stays out of git and the Docker image."""
    assert "/.env.local" in (BASE / ".gitignore").read_text().splitlines()
    assert ".env.local" in (BASE / ".dockerignore").read_text().splitlines()
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", ".env.local"], cwd=BASE, capture_output=True
    )
    assert ignored.returncode == 0
