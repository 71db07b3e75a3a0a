"""Real feeds: the real-world corpus through the readers, and a first import of its largest feed.

tests/corpus/real holds other feed libraries' test data (podcastparser, atoma, reader,
fastfeedparser: its README.md), each file served as a web server would serve it
(``application/xml``, ``application/feed+json`` for ``.json``). Three targets of SPEC §7:

- fast path: the share of the corpus' feed files that ``readers.parse`` gives to the
  fast reader (fastrss); JSON Feed files, read by jsonfeed, are counted apart. Each
  file's reader and parse time go to the JSON result and are printed.
- speed: the parse step of the five largest files against feedparser's path on the
  same bytes, interleaved, medians; bare ``feedparser.parse`` and ``fastfeedparser.parse``
  (a compiled core) beside them for reference.
- first import: the largest file fetched from the local feed server, parsed and stored
  as a new feed, by ``import_feeds --sync`` and by ``addfeed --import`` (which finds the
  feed first, parsing it a first time), against ``feedparser.parse`` of the same bytes
  alone. Each repeat starts from an empty feed table.

The imports run on PostgreSQL with memcached locks, as every benchmark's;
``BENCH_REAL_FEEDS_SQLITE=1`` runs them on a fresh SQLite file instead.
``BENCH_REAL_FEEDS_ROUNDS`` (5) sets the repeats.
"""

import io
import os
import shutil
import tempfile
from collections import Counter

import fastfeedparser
import feedparser

from bench.harness import Stopwatch, bench_environment, median
from bench.report import Report
from localservers.feed_server import FeedServer
from tests.support.real_corpus import feed_files, name_of, url_of

ROUNDS = int(os.environ.get("BENCH_REAL_FEEDS_ROUNDS", 5))
ON_SQLITE = os.environ.get("BENCH_REAL_FEEDS_SQLITE") == "1"
LARGEST = 5
# The ways of the first import, timed in turns; "feedparser.parse" is the baseline.
WAYS = ("feedparser.parse", "import_feeds --sync", "addfeed --import", "importer alone")


def content_type_of(path):
    """What a web server sends for the file: JSON Feed's own type, else generic XML."""
    return "application/feed+json" if path.suffix == ".json" else "application/xml"


def read_with(path):
    """``readers.parse`` of a corpus file at its corpus URL; the ``ParsedFeed``."""
    from djangofeeds.parsing import readers

    body = path.read_bytes()
    return readers.parse(body, url=url_of(path), content_type=content_type_of(path))


def corpus_readers(files, rounds=ROUNDS):
    """Per file: its size, the reader ``readers.parse`` chose ("not a feed" and the
    reason if none) and the parse's median milliseconds."""
    from djangofeeds.parsing.readers import NotAFeed

    table = []
    for path in files:
        times, reason = [], ""
        for _ in range(rounds):
            with Stopwatch() as watch:
                try:
                    parser = read_with(path).parser
                except NotAFeed as exc:
                    parser, reason = "not a feed", str(exc)
            times.append(watch.ms)
        row = {"file": name_of(path), "bytes": path.stat().st_size, "parser": parser}
        table.append(row | {"ms": median(times)} | ({"reason": reason} if reason else {}))
    return table


def fast_path_counts(table):
    """Files per reader, and the fast reader's share of all files and of the XML ones."""
    by_parser = Counter(row["parser"] for row in table)
    xml = sum(not row["file"].endswith(".json") for row in table)
    fast = by_parser["fastrss"] + by_parser["fastatom"]  # the fast path: RSS and Atom
    ours = fast + by_parser["jsonfeed"]  # read without feedparser
    return {
        "files": len(table),
        "xml_files": xml,
        "by_parser": dict(by_parser.most_common()),
        "fastrss_share": fast / len(table) if table else 0.0,
        "fastrss_share_of_xml": fast / xml if xml else 0.0,
        "fast_readers_share": ours / len(table) if table else 0.0,
    }


def parse_steps(path):
    """The readers timed on one file: ours, feedparser's path, and the two bare libraries."""
    from djangofeeds.parsing import feedparser_reader, readers

    body, url, kind = path.read_bytes(), url_of(path), content_type_of(path)
    return {
        "readers.parse": lambda: readers.parse(body, url=url, content_type=kind),
        "feedparser path": lambda: feedparser_reader.parse(body, url=url, content_type=kind),
        "feedparser.parse": lambda: feedparser.parse(body),
        "fastfeedparser.parse": lambda: fastfeedparser.parse(body),
    }


def parse_speeds(files, rounds=ROUNDS):
    """``{file: {reader: [ms per round]}}``: every reader on every file in each round, the
    readers' order turning from one round to the next."""
    steps = {name_of(path): parse_steps(path) for path in files}
    times = {name: {reader: [] for reader in readers} for name, readers in steps.items()}
    for number in range(rounds):
        for name, readers in steps.items():
            order = list(readers)
            order = order[number % len(order) :] + order[: number % len(order)]
            for reader in order:
                with Stopwatch() as watch:
                    readers[reader]()
                times[name][reader].append(watch.ms)
    return times


def first_import(way, route, body, server):
    """One first import of the feed ``server`` serves at ``route`` by ``way`` (or
    ``feedparser.parse(body)`` alone): its milliseconds, the phases its run recorded, the
    posts stored and the fetches made."""
    from django.core.management import call_command

    from bench.harness import import_url
    from djangofeeds.models import Category, Feed, ImportRun, Outcome, Post

    Feed.objects.all().delete()
    Category.objects.all().delete()  # a first import creates its categories too
    url, out, hits = server.url(route), io.StringIO(), server.hits(route)
    with Stopwatch() as watch:
        if way == "feedparser.parse":
            feedparser.parse(body)
        elif way == "import_feeds --sync":
            call_command("import_feeds", url, sync=True, stdout=out, stderr=out)
        elif way == "addfeed --import":
            call_command("addfeed", url, import_now=True, stdout=out, stderr=out)
        else:
            import_url(url)
    found = {"total_ms": watch.ms, "fetches": server.hits(route) - hits}
    if way == "feedparser.parse":
        return found
    run = ImportRun.objects.get()  # the feed's only run: a first import
    if run.outcome != Outcome.IMPORTED or not run.created:
        raise AssertionError(f"{way}: {run.outcome}, {run.created} posts: {run.error}")
    phases = {"fetch_ms": run.fetch_ms, "parse_ms": run.parse_ms, "store_ms": run.store_ms}
    return found | phases | {"created": run.created, "posts": Post.objects.count()}


def first_imports(server, path, rounds=ROUNDS):
    """``{way: [first_import, ...]}`` for the corpus file ``path`` served by ``server``,
    the ways in turns after a first round left out."""
    body, route = path.read_bytes(), "/" + path.name
    server.serve(route, body, content_type=content_type_of(path))
    for way in WAYS:  # once each, untimed: the connections opened, the code paths warm
        first_import(way, route, body, server)
    runs = {way: [] for way in WAYS}
    for number in range(rounds):
        for way in WAYS[number % len(WAYS) :] + WAYS[: number % len(WAYS)]:
            runs[way].append(first_import(way, route, body, server))
    return runs


def print_table(table):
    """The corpus' files with their reader and parse time, one line each."""
    width = max(len(row["file"]) for row in table)
    for row in table:
        line = f"{row['file']:<{width}} {row['bytes'] / 1024:7.1f} KiB  {row['parser']:<10}"
        print(f"{line} {row['ms']:8.2f} ms", flush=True)


def measure():
    """The three targets' raw figures, inside the bench environment."""
    files = feed_files()
    largest = sorted(files, key=lambda path: path.stat().st_size, reverse=True)[:LARGEST]
    server = FeedServer().start()
    try:
        with bench_environment(memcached=True, database=not ON_SQLITE):
            from django.core.management import call_command
            from django.db import connection

            if ON_SQLITE:
                call_command("migrate", verbosity=0, interactive=False)
            table = corpus_readers(files)
            speeds = parse_speeds(largest)
            imports = first_imports(server, largest[0])
            database = connection.vendor
    finally:
        server.stop()
    return {
        "table": table,
        "largest": [name_of(path) for path in largest],
        "speeds": speeds,
        "imports": imports,
        "database": database,
    }


def report_fast_path(report, table):
    """The row of the fast reader's share, a note naming what it takes and what no reader does."""
    counts = fast_path_counts(table)
    others = ", ".join(f"{parser} {n}" for parser, n in counts["by_parser"].items())
    fast = counts["by_parser"].get("fastrss", 0) + counts["by_parser"].get("fastatom", 0)
    ours = fast + counts["by_parser"].get("jsonfeed", 0)
    report.row(
        "real feeds (bench_real_feeds, 2026-11-29): fast path, corpus files read by a fast "
        f"reader, fastrss, fastatom or jsonfeed, not feedparser "
        f"(tests/corpus/real, {counts['files']} files)",
        f"{ours} of {counts['files']} ({counts['fast_readers_share']:.0%}); XML files by "
        f"fastrss or fastatom: {fast} of {counts['xml_files']} "
        f"({counts['fastrss_share_of_xml']:.0%}); by reader: {others}",
        goal=">= 90%",
        met=counts["fast_readers_share"] >= 0.9,
    )
    taken = [row["file"] for row in table if row["parser"] in ("fastrss", "fastatom")]
    refused = [f"{row['file']} ({row['reason']})" for row in table if row.get("reason")]
    report.note(
        f"fastrss and fastatom read {', '.join(taken) or 'none'}; "
        f"not a feed: {', '.join(refused) or 'none'}. "
        "The share is of every file (JSON Feed's read by jsonfeed, the not-a-feed file "
        "counted as not read); the XML files' share leaves the JSON Feed files out."
    )
    return counts


def report_speed(report, speeds, table):
    """Rows of the five largest files' parse times (summed medians), a note per file."""
    mid = {name: {r: median(ms) for r, ms in readers.items()} for name, readers in speeds.items()}
    total = Counter()
    for readers in mid.values():
        total.update(readers)
    parsers = {row["file"]: row["parser"] for row in table}
    ours, before = total["readers.parse"], total["feedparser path"]
    report.row(
        f"real feeds: speed, parse step of the {len(mid)} largest files (readers.parse) vs "
        "feedparser's path, same bytes",
        f"{ours:.0f} ms",
        f"{before:.0f} ms",
        f"{before / ours:.2f}x",
        ">= 20x (moonshot 50x)",
        before / ours >= 20,
    )
    report.row(
        "real feeds: the same files, bare feedparser.parse / fastfeedparser.parse (reference)",
        f"{total['feedparser.parse']:.0f} / {total['fastfeedparser.parse']:.1f} ms",
        f"{before:.0f} ms (feedparser's path)",
    )
    for name, readers in mid.items():
        size = next(row["bytes"] for row in table if row["file"] == name) / 1024
        report.note(
            f"{name} ({size:.0f} KiB, read by {parsers[name]}): readers.parse "
            f"{readers['readers.parse']:.1f} ms, feedparser's path "
            f"{readers['feedparser path']:.1f} ms "
            f"({readers['feedparser path'] / readers['readers.parse']:.2f}x), bare "
            f"feedparser.parse {readers['feedparser.parse']:.1f} ms, fastfeedparser.parse "
            f"{readers['fastfeedparser.parse']:.2f} ms"
        )
    return mid


def report_imports(report, imports, largest, database):
    """Rows of the two ways of importing against the baseline, notes with their phases."""
    mid = {way: {k: median([r[k] for r in runs]) for k in runs[0]} for way, runs in imports.items()}
    alone = mid["feedparser.parse"]["total_ms"]
    for way in ("import_feeds --sync", "addfeed --import"):
        ours = mid[way]
        report.row(
            f"real feeds: first import of {largest}, {ours['posts']:.0f} posts), {way} "
            f"(fetch, parse, store; {database}) vs feedparser.parse of the same bytes alone",
            f"{ours['total_ms']:.0f} ms",
            f"{alone:.0f} ms",
            f"{alone / ours['total_ms']:.2f}x",
            ">= 5x faster",
            alone / ours["total_ms"] >= 5,
        )
    for way in ("import_feeds --sync", "addfeed --import", "importer alone"):
        ours = mid[way]
        rest = ours["total_ms"] - ours["fetch_ms"] - ours["parse_ms"] - ours["store_ms"]
        report.note(
            f"first import by {way}: {ours['total_ms']:.0f} ms, of which the run's fetch "
            f"{ours['fetch_ms']:.0f} / parse {ours['parse_ms']:.0f} / store "
            f"{ours['store_ms']:.0f} ms, the rest {rest:.0f} ms; fetches of the feed: "
            f"{ours['fetches']:.0f}"
            + (" (the finder's work outside the run is in the rest)" if way == WAYS[2] else "")
        )
    return mid


def main():
    report = Report("real_feeds", "Real feeds")
    folder = tempfile.mkdtemp(prefix="project-bench-sqlite-") if ON_SQLITE else None
    if folder:
        os.environ["BENCH_DATABASE_URL"] = f"sqlite:///{folder}/bench.sqlite3"
    try:
        found = measure()
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    print_table(found["table"])
    size = next(row["bytes"] for row in found["table"] if row["file"] == found["largest"][0])
    largest = f"{found['largest'][0]} ({size / 1024:.0f} KiB"
    counts = report_fast_path(report, found["table"])
    speeds = report_speed(report, found["speeds"], found["table"])
    imports = report_imports(report, found["imports"], largest, found["database"])
    report.raw |= {
        "rounds": ROUNDS,
        "fast_path": counts,
        "corpus": found["table"],
        "largest": found["largest"],
        "parse_ms": found["speeds"],
        "parse_median_ms": speeds,
        "first_imports": found["imports"],
        "first_import_median": imports,
        "database": found["database"],
        "versions": {"feedparser": feedparser.__version__, "fastfeedparser": version()},
    }
    report.note(
        f"Medians of {ROUNDS} rounds, every reader and way of importing in turns in each "
        "(the imports after one round left out, each import a new feed's first). "
        "Files are served as a web server would (application/xml; JSON Feed as "
        "application/feed+json). The fast path's share counts every feed file of the "
        "corpus; its reader per file and parse time are in bench/results/real_feeds.json."
    )
    report.save()


def version():
    from importlib.metadata import version

    return version("fastfeedparser")


if __name__ == "__main__":
    main()
