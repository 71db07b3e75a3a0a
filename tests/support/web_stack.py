"""The production web stack as docker-compose.yml runs it, on free loopback ports."""

import os
import re
import shlex
import ssl
import subprocess
import sys
import time
from pathlib import Path

import yaml
from django.conf import settings

from localservers.processes import WatchedProcess
from localservers.services import free_port, require_program, wait_for_port
from tests.support.settings_env import SESSION_VARIABLES, production_env

BASE = Path(settings.BASE_DIR)
HOST = "blog.example.com"
TEMPLATES = BASE / "deploy" / "nginx" / "templates"
# The nginx image's own /etc/nginx/nginx.conf (1.2x), its paths moved into the test's
# folder: conf.d/ gets the templates, filled in as the image's entrypoint does.
IMAGE_NGINX_CONF = """
{user}
worker_processes 1;
error_log stderr notice;
pid {folder}/nginx.pid;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    log_format main '$remote_addr - $remote_user [$time_local] "$request" '
                    '$status $body_bytes_sent "$http_referer" '
                    '"$http_user_agent" "$http_x_forwarded_for"';
    access_log {folder}/image-access.log main;
    sendfile on;
    keepalive_timeout 65;
    include conf.d/*.conf;
}}
"""


def compose_command(name):
    """The argv of service ``name`` in docker-compose.yml."""
    command = yaml.safe_load((BASE / "docker-compose.yml").read_text())["services"][name]["command"]
    return shlex.split(command) if isinstance(command, str) else list(command)


def without_bind(argv):
    """``argv`` without its ``--bind`` (gunicorn listens on every --bind it is given)."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--bind", "-b"):
            skip = True
        elif not arg.startswith("--bind="):
            kept.append(arg)
    return kept


def start_web(var_dir, memcached_location, manage=(), command=None):
    """web's gunicorn command from docker-compose.yml (or ``command``) on project.settings,
    DEBUG off, after the ``manage`` commands (``"migrate"``, ``"collectstatic"``).

    Returns (process, port). The database is SQLite and the broker the filesystem one, both
    in ``var_dir``: /healthz asks each to answer, and the slow clients never reach them.
    """
    port = free_port()
    command = command or compose_command("web")
    assert command[0] == "gunicorn", command
    argv = [sys.executable, "-m", *without_bind(command), "--bind", f"127.0.0.1:{port}"]
    env = {name: value for name, value in os.environ.items() if name not in SESSION_VARIABLES}
    env |= production_env() | {
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_ALLOWED_HOSTS": HOST,
        "DJANGO_VAR_DIR": str(var_dir),
        "DATABASE_URL": f"sqlite:///{var_dir}/db.sqlite3",
        "MEMCACHED_LOCATION": memcached_location,
        "DJANGO_SECURE_PROXY_SSL_HEADER": "1",
        "BLOG_TRUSTED_PROXIES": "127.0.0.1",
    }
    for name in manage:  # collectstatic: into staticfiles/, as the Dockerfile does
        step = [sys.executable, "manage.py", name, "--noinput"]
        subprocess.run(step, cwd=BASE, env=env, check=True, capture_output=True, timeout=120)
    web = WatchedProcess(argv, cwd=BASE, env=env)
    web.wait_for(r"Booting worker with pid", timeout=30)
    wait_for_port("127.0.0.1", port)
    return web, port


def fill_in(text, variables):
    """``text`` with ``$NAME`` and ``${NAME}`` of ``variables`` replaced, as envsubst does."""
    pattern = r"\$(?:\{(\w+)\}|(\w+))"
    return re.sub(pattern, lambda m: variables.get(m[1] or m[2], m[0]), text)


def start_proxy(folder, web_port, tls="off"):
    """nginx on deploy/nginx/templates, in front of ``web_port``, as compose's proxy service.

    Returns (process, http_port, https_port); with ``tls="on"`` the certificate and key
    are expected in ``folder``/tls/, where compose mounts deploy/tls/.
    """
    http_port, https_port = free_port(), free_port()
    variables = {
        "WEB_ADDRESS": f"127.0.0.1:{web_port}",
        "PROXY_HTTP_PORT": str(http_port),
        "PROXY_HTTPS_PORT": str(https_port),
        "PROXY_TLS": tls,
    }
    for template in TEMPLATES.rglob("*.template"):
        target = folder / "conf.d" / template.relative_to(TEMPLATES).with_suffix("")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(fill_in(template.read_text(), variables))
    conf = folder / "nginx.conf"
    # As root, workers would run as nobody, who cannot reach the test's private folder.
    user = "user root;" if os.geteuid() == 0 else ""
    conf.write_text(IMAGE_NGINX_CONF.format(folder=folder, user=user))
    argv = [require_program("nginx", "nginx"), "-p", f"{folder}/", "-c", str(conf)]
    proxy = WatchedProcess([*argv, "-g", "daemon off;"], cwd=folder, env=dict(os.environ))
    deadline = time.monotonic() + 10
    while not port_open(http_port):
        if proxy.process.poll() is not None or time.monotonic() > deadline:
            proxy.kill()
            raise RuntimeError(f"nginx did not start: {proxy.tail()}")
        time.sleep(0.05)
    return proxy, http_port, https_port


def port_open(port):
    try:
        wait_for_port("127.0.0.1", port, timeout=0)
    except TimeoutError:
        return False
    return True


def make_certificate(folder):
    """A self-signed certificate for HOST where compose mounts deploy/tls/: ``folder``/tls/."""
    tls = folder / "tls"
    tls.mkdir(exist_ok=True)
    argv = [require_program("openssl", "openssl"), "req", "-x509", "-nodes", "-days", "1"]
    argv += ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-subj", f"/CN={HOST}"]
    argv += ["-keyout", str(tls / "privkey.pem"), "-out", str(tls / "fullchain.pem")]
    subprocess.run(argv, check=True, capture_output=True, timeout=30)
    return tls / "fullchain.pem"


def trusting(certificate):
    """A client's TLS context that trusts ``certificate`` (for 127.0.0.1, not its HOST)."""
    context = ssl.create_default_context(cafile=certificate)
    context.check_hostname = False  # the certificate itself is still checked
    return context
