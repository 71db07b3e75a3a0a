"""bench/bench_opml.py measures what it says: an OPML import with silent hosts, every row stored.

The figures are not checked (the benchmark reports them); their structure is.
"""

import pytest

from bench import bench_opml as bench
from bench.report import Report

pytestmark = pytest.mark.django_db


def test_import_rows_stores_every_row_and_the_silent_hosts_rows_with_their_error(
    settings, memcached_cache
):
    """20 rows on 5 hosts, one silent: all stored, the silent host's 4 unchecked and due."""
    settings.DJANGOFEEDS_FETCH_TIMEOUT = 1

    raw = bench.import_rows(rows=20, hosts=5)

    assert (raw["stored"], raw["silent_hosts"], raw["silent_rows"]) == (20, 1, 4)
    assert raw["unchecked_and_due"] == 4
    assert raw["silent_connections"] == 1  # its first row; the others kept without a wait
    assert raw["summary"] == "20 feeds in the file: 20 added, 0 skipped, 0 invalid"


def test_report_has_the_time_against_its_estimate_and_the_rows_stored():
    """Two rows: the time (goal < 60 s) against the estimated baseline, and the rows stored."""
    raw = {
        "rows": 20,
        "hosts": 5,
        "silent_hosts": 1,
        "silent_rows": 4,
        "seconds": 2.5,
        "stored": 20,
        "unchecked_and_due": 4,
        "silent_connections": 2,
        "fetch_timeout": 1,
        "concurrency": 10,
        "max_per_host": 2,
        "summary": "20 feeds in the file: 20 added, 0 skipped, 0 invalid",
    }
    report = Report("opml", "OPML import")

    bench.report_import(report, raw)

    assert [row.goal for row in report.rows] == ["< 60 s", "all"]
    assert [row.met for row in report.rows] == [True, True]
    assert "estimated" in report.rows[0].baseline and len(report.notes) == 1
