"""How long a process waits on the Celery broker: per role, in each transport's own names.

Two roles wait differently, on purpose:

- REQUEST: a web request, a manage.py command, a shell. It only publishes, and a
  person waits for the answer. A broker that is down or hangs costs it at most
  about ``attempts x (connect + io) + pause``, well under 2 seconds; what was not
  sent stays in the database (a comment stays pending for the sweeper, an
  import is reported as not queued).
- WORKER: a Celery worker or beat (project/celery.py switches them at start).
  They live on the broker: timeouts as short as a request's would turn a slow
  second into reconnect storms and failed retries, so they wait longer.

Each transport honours its own option names. kombu's Redis transport reads
``socket_connect_timeout`` and ``socket_timeout``; py-amqp (``amqp://``) ignores
those and reads ``read_timeout`` and ``write_timeout`` (socket receive and send
timeouts), and takes Celery's ``broker_connection_timeout`` as its
``connect_timeout``, which also bounds each step of the AMQP handshake.
"""

from dataclasses import dataclass
from pathlib import Path

REQUEST, WORKER = "request", "worker"


@dataclass(frozen=True)
class Timeouts:
    connect: float  # seconds to open a connection (and, on amqp, per handshake step)
    io: float  # seconds one read or write on an open connection may block
    retries: int  # publish retries after the first attempt
    heartbeat: int  # amqp heartbeat in seconds (0: none)


TIMEOUTS = {
    # A hung broker (it accepts, then never answers) costs one timeout per
    # attempt: about 2 x 0.5 s; even a slow connect plus a hung read on both
    # attempts stays within 2 x (0.5 + 0.5) s.
    REQUEST: Timeouts(connect=0.5, io=0.5, retries=1, heartbeat=0),
    # Celery's own defaults for connect, retries and heartbeat; io well above
    # the Redis transport's 1 s BRPOP wait, and above any normal broker pause.
    WORKER: Timeouts(connect=4.0, io=10.0, retries=3, heartbeat=120),
}


def broker_kind(url):
    """The transport family of ``url``: amqp, redis, or the scheme itself (filesystem...)."""
    scheme = url.split("://", 1)[0].lower()
    if scheme in {"amqp", "amqps", "pyamqp"}:
        return "amqp"
    if scheme in {"redis", "rediss", "sentinel"}:
        return "redis"
    return scheme


def transport_timeouts(url, role):
    """The broker_transport_options, for ``url``'s transport, that bound a ``role``'s waits."""
    timeouts = TIMEOUTS[role]
    kind = broker_kind(url)
    if kind == "redis":
        return {"socket_connect_timeout": timeouts.connect, "socket_timeout": timeouts.io}
    if kind == "amqp":
        return {"read_timeout": timeouts.io, "write_timeout": timeouts.io}
    return {}


def celery_settings(url, role, transport_options=None):
    """Celery settings (lower-case names) for ``role`` on the broker at ``url``.

    ``transport_options`` (folders, key prefixes) are kept; only the timeouts change.
    """
    timeouts = TIMEOUTS[role]
    return {
        "broker_transport_options": {
            **(transport_options or {}),
            **transport_timeouts(url, role),
        },
        "broker_connection_timeout": timeouts.connect,
        "task_publish_retry_policy": {
            "max_retries": timeouts.retries,
            "interval_start": 0,
            "interval_step": 0.2,
            "interval_max": 0 if role == REQUEST else 1,
        },
        # A request process never sends heartbeats (it does not consume); with
        # one negotiated, RabbitMQ would close its pooled connection when idle
        # and the next publish would go into a dead socket.
        "broker_heartbeat": timeouts.heartbeat,
    }


# The transport options that name folders: kombu's filesystem transport needs them to exist.
FOLDER_OPTIONS = ("data_folder_in", "data_folder_out", "control_folder")


def filesystem_options(folder):
    """The filesystem transport's options for a broker in ``folder`` (queue/, control/)."""
    folder = Path(folder)
    return {
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "control_folder": str(folder / "control"),
        "polling_interval": 0.2,
    }


def make_folders(transport_options):
    """Create the folders the transport options name (none for Redis or RabbitMQ)."""
    for name in FOLDER_OPTIONS:
        if transport_options.get(name):
            Path(transport_options[name]).mkdir(parents=True, exist_ok=True)


def check_broker():
    """Raise unless the broker answers now: /healthz's probe (one retry, 2 s at most)."""
    from celery import current_app  # not at import: the settings import this module

    with current_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
