"""OPML import: 1,000 rows on 100 hosts, 10 of which accept connections and never answer.

Real local servers (``localservers``): 90 loopback addresses of a feed server,
each serving its rows' RSS documents, and 10 silent ones
(``localservers.silent_server``), each row there a fetch that times out. The
rows alternate between the hosts, ten rows each. ``opml_import`` runs in this
process with the product's defaults (``DJANGOFEEDS_OPML_CONCURRENCY``,
``DJANGOFEEDS_MAX_PER_HOST``, ``DJANGOFEEDS_FETCH_TIMEOUT``), memcached host
slots, PostgreSQL. Measured: the command's time, and that every row is stored
(those of the silent hosts with their error, due for the importer).

The baseline is estimated, not run: the same rows one after another wait one
read timeout per silent row; the answering rows' own time is left out, so it
is a lower bound. Smaller runs: ``BENCH_OPML_ROWS``, ``BENCH_OPML_HOSTS`` (e.g. 100, 10).
"""

import io
import os
import tempfile
import time
from pathlib import Path

from bench.harness import bench_environment
from bench.report import Report, ratio
from localservers.feed_server import FeedServer, numbered_items, rss
from localservers.silent_server import SilentHosts

ROWS = int(os.environ.get("BENCH_OPML_ROWS", 1000))
HOSTS = int(os.environ.get("BENCH_OPML_HOSTS", 100))
SILENT_SHARE = 0.1  # of the hosts
GOAL_SECONDS = 60


def opml(urls):
    """An OPML document with one row per URL."""
    outlines = "".join(
        f'<outline type="rss" text="row {n}" xmlUrl="{url}"/>' for n, url in enumerate(urls)
    )
    return f'<?xml version="1.0"?><opml version="2.0"><body>{outlines}</body></opml>'


def row_urls(server, silent, rows, hosts):
    """``rows`` URLs alternating between the hosts, the last ``len(silent.hosts)`` silent ones;
    and the silent ones' URLs apart."""
    answering = hosts - len(silent.hosts)
    urls, silent_urls = [], []
    for n in range(rows):
        host = n % hosts
        if host < answering:
            urls.append(server.url(f"/feed/{n}.xml", host=server.host(host)))
        else:
            urls.append(silent.url(f"/feed/{n}.xml", host - answering))
            silent_urls.append(urls[-1])
    return urls, silent_urls


def import_rows(rows=ROWS, hosts=HOSTS):
    """Run ``opml_import`` on ``rows`` rows (10% of the hosts silent); its raw figures."""
    from django.core.management import call_command

    from djangofeeds import conf
    from djangofeeds.models import Feed, Outcome

    silent_hosts = max(1, round(hosts * SILENT_SHARE))
    server = FeedServer(hosts=hosts - silent_hosts)
    silent = SilentHosts(silent_hosts, first=hosts - silent_hosts)
    document = rss(numbered_items(2))
    for n in range(rows):
        server.serve(f"/feed/{n}.xml", document)
    server.start(), silent.start()
    try:
        urls, silent_urls = row_urls(server, silent, rows, hosts)
        with tempfile.TemporaryDirectory(prefix="bench-opml-") as folder:
            path = Path(folder) / "subscriptions.opml"
            path.write_text(opml(urls))
            out = io.StringIO()
            started = time.monotonic()
            call_command("opml_import", str(path), stdout=out)
            seconds = time.monotonic() - started
    finally:
        server.stop(), silent.stop()
    stored = Feed.objects.filter(url__in=urls)
    unchecked = stored.filter(url__in=silent_urls, last_status=Outcome.FAILED, error_count=1)
    return {
        "rows": rows,
        "hosts": hosts,
        "silent_hosts": silent_hosts,
        "silent_rows": len(silent_urls),
        "seconds": seconds,
        "stored": stored.count(),
        "unchecked_and_due": Feed.objects.due().filter(pk__in=unchecked).count(),
        "silent_connections": silent.connections,
        "fetch_timeout": conf.DJANGOFEEDS_FETCH_TIMEOUT,
        "concurrency": conf.DJANGOFEEDS_OPML_CONCURRENCY,
        "max_per_host": conf.DJANGOFEEDS_MAX_PER_HOST,
        "summary": out.getvalue().splitlines()[0],
    }


def report_import(report, raw):
    """The time against the rows one after another, and every row stored."""
    baseline = raw["silent_rows"] * raw["fetch_timeout"]
    report.row(
        f"OPML import: {raw['rows']} rows, {raw['silent_hosts']} of {raw['hosts']} hosts silent",
        f"{raw['seconds']:.1f} s",
        f">= {baseline:.0f} s (one after another, estimated: "
        f"{raw['silent_rows']} silent rows x {raw['fetch_timeout']} s timeout)",
        ratio(raw["seconds"], baseline, 3),
        f"< {GOAL_SECONDS} s",
        raw["seconds"] < GOAL_SECONDS,
    )
    report.row(
        "OPML import: rows stored (silent hosts' rows with their error, due)",
        f"{raw['stored']}/{raw['rows']} ({raw['unchecked_and_due']}/{raw['silent_rows']})",
        goal="all",
        met=raw["stored"] == raw["rows"] and raw["unchecked_and_due"] == raw["silent_rows"],
    )
    report.note(
        f"{raw['rows']} rows on {raw['hosts']} loopback hosts ({raw['rows'] // raw['hosts']} "
        f"each), {raw['silent_hosts']} of which accept connections and never answer; "
        f"DJANGOFEEDS_OPML_CONCURRENCY {raw['concurrency']}, DJANGOFEEDS_MAX_PER_HOST "
        f"{raw['max_per_host']}, DJANGOFEEDS_FETCH_TIMEOUT {raw['fetch_timeout']} s; memcached "
        f"host slots, PostgreSQL. The silent hosts were connected to {raw['silent_connections']} "
        "times: a host is asked one row first, and once it did not answer, its other rows are "
        "kept without a fetch. The "
        "baseline is estimated from the read timeout each silent row waits when the rows are "
        "checked one after another (the answering rows' time left out: a lower bound). "
        f"The command said: {raw['summary']}"
    )


def main():
    report = Report("opml", "OPML import")
    with bench_environment(memcached=True):
        raw = import_rows()
    report.raw |= raw
    report_import(report, raw)
    report.save()


if __name__ == "__main__":
    main()
