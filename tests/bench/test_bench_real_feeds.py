"""bench/bench_real_feeds.py measures what it says: its steps on a few small corpus files, once.

The figures are not checked (the benchmark reports them); their structure is.
"""

import pytest

from bench import bench_real_feeds as bench
from bench.report import Report
from tests.support.real_corpus import REAL, name_of

pytestmark = pytest.mark.django_db

RSS, JSON = REAL / "reader" / "full.rss", REAL / "reader" / "full.json"
BROKEN = REAL / "fastfeedparser" / "malformed_rss_namespaced.xml"
READERS = {"fastrss", "fastatom", "feedparser", "jsonfeed", "not a feed"}


def test_corpus_readers_name_each_files_reader_size_and_time():
    """Each file gets its reader (the reason when no reader takes it), size and parse time."""
    table = bench.corpus_readers([RSS, JSON, BROKEN], rounds=1)

    assert [row["file"] for row in table] == [name_of(path) for path in (RSS, JSON, BROKEN)]
    assert [row["bytes"] for row in table] == [p.stat().st_size for p in (RSS, JSON, BROKEN)]
    assert {row["parser"] for row in table} <= READERS
    assert table[1]["parser"] == "jsonfeed"
    assert table[2]["parser"] == "not a feed" and table[2]["reason"]
    assert all(row["ms"] > 0 for row in table)


def test_fast_path_counts_share_of_all_files_and_of_xml_ones():
    """The fast reader's share counts every file; the XML share leaves JSON Feed files out."""
    table = [
        {"file": "a/one.xml", "parser": "fastrss"},
        {"file": "a/two.rss", "parser": "feedparser"},
        {"file": "b/three.json", "parser": "jsonfeed"},
    ]

    counts = bench.fast_path_counts(table)

    assert counts["files"] == 3 and counts["xml_files"] == 2
    assert counts["by_parser"] == {"fastrss": 1, "feedparser": 1, "jsonfeed": 1}
    assert counts["fastrss_share"] == pytest.approx(1 / 3)
    assert counts["fastrss_share_of_xml"] == pytest.approx(1 / 2)
    assert counts["fast_readers_share"] == pytest.approx(2 / 3)  # all but feedparser's


def test_parse_speeds_time_every_reader_on_every_file():
    """Ours, feedparser's path and the two bare libraries, once per round on each file."""
    speeds = bench.parse_speeds([RSS, REAL / "reader" / "relative.rss"], rounds=2)

    assert list(speeds) == ["reader/full.rss", "reader/relative.rss"]
    for times in speeds.values():
        assert set(times) == {
            "readers.parse",
            "feedparser path",
            "feedparser.parse",
            "fastfeedparser.parse",
        }
        assert all(len(ms) == 2 and min(ms) > 0 for ms in times.values())


def test_first_imports_are_each_a_new_feeds_first_import(feed_server):
    """Each way fetches from the server and stores its posts as a new feed's; the baseline
    only parses."""
    runs = bench.first_imports(feed_server, RSS, rounds=2)

    assert set(runs) == set(bench.WAYS) and all(len(done) == 2 for done in runs.values())
    assert {run["fetches"] for run in runs["feedparser.parse"]} == {0}
    for way in bench.WAYS[1:]:
        for run in runs[way]:
            assert run["fetches"] == 1  # addfeed --import imports from its finder's fetch
            # Every post stored was created by this import: nothing was left from the last.
            assert run["created"] == run["posts"] > 0
            assert run["total_ms"] >= run["parse_ms"]


def test_report_has_a_row_per_target_with_its_goal(feed_server):
    """The fast path, the speed (with its reference row) and the two first imports."""
    table = bench.corpus_readers([RSS, JSON], rounds=1)
    report = Report("real_feeds", "Real feeds")

    bench.report_fast_path(report, table)
    bench.report_speed(report, bench.parse_speeds([RSS], rounds=1), table)
    bench.report_imports(report, bench.first_imports(feed_server, RSS, rounds=1), "f", "sqlite")

    goals = [row.goal for row in report.rows]
    assert goals == [">= 90%", ">= 20x (moonshot 50x)", "-", ">= 5x faster", ">= 5x faster"]
    # Whether a goal is met is the run's measurement; the reference row has none.
    assert [type(row.met) for row in report.rows] == [bool, bool, type(None), bool, bool]
    assert len(report.notes) == 1 + 1 + 3  # fast path, one per file, one per way
