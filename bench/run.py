"""Run every benchmark in bench/ (``bench_*.py``), print one table, rewrite docs/benchmarks.md.

``python bench/run.py`` runs them all (``make bench``); ``python bench/run.py lock
import`` runs only those and leaves the docs alone.
"""

import contextlib
import importlib.metadata
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOCS = ROOT / "docs" / "benchmarks.md"
# SPEC §7's order; a script not listed here runs after these.
ORDER = [
    "lock",
    "import",
    "unchanged",
    "contention",
    "comments",
    "end_to_end",
    "parser",
    "scale",
    "pools",
    "politeness",
    "push",
    "search",
    "real_feeds",
    "opml",
    "rules",
    "stories",
]
LIBRARIES = [
    "Django",
    "celery",
    "kombu",
    "django-celery-results",
    "feedparser",
    "fastfeedparser",
    "psycopg",
    "pymemcache",
    "redis",
    "gunicorn",
    "httpx",
]

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(ROOT))

from bench.report import load, markdown_table  # noqa: E402


def scripts(wanted=()):
    """(name, path) of the benchmarks to run: bench_<name>.py writes results/<name>.json."""
    found = {path.stem.removeprefix("bench_"): path for path in HERE.glob("bench_*.py")}
    names = [name for name in ORDER if name in found] + sorted(set(found) - set(ORDER))
    unknown = set(wanted) - set(found)
    if unknown:
        sys.exit(f"no such benchmark: {', '.join(sorted(unknown))} (have: {', '.join(names)})")
    return [(name, found[name]) for name in names if not wanted or name in wanted]


def run(name, run_id):
    """Run one script; return (its report or None, seconds it took)."""
    print(f"== {name}", flush=True)
    started = time.monotonic()
    env = {**os.environ, "BENCH_RUN_ID": run_id}
    argv = [sys.executable, "-m", f"bench.bench_{name}"]
    code = subprocess.run(argv, cwd=ROOT, env=env).returncode
    seconds = time.monotonic() - started
    report = load(name)
    if code != 0 or report is None or report.get("run_id") != run_id:
        print(f"!! {name} failed (exit {code})", flush=True)
        return None, seconds
    return report, seconds


def machine():
    """What the figures were measured on."""
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"model name\s*:\s*(.+)", cpuinfo)
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    memory = re.search(r"MemTotal:\s*(\d+)", meminfo)
    versions = []
    for library in LIBRARIES:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions.append(f"{library} {importlib.metadata.version(library)}")
    return {
        "CPU": model.group(1).strip() if model else platform.processor() or "unknown",
        "cores": str(os.cpu_count()),
        "memory": f"{int(memory.group(1)) / 1024**2:.0f} GiB" if memory else "unknown",
        "OS": platform.platform(),
        "Python": platform.python_version(),
        "PostgreSQL": postgres_version(),
        "Redis": program_version(["redis-server", "--version"], r"v=(\S+)"),
        "memcached": program_version(["memcached", "-V"], r"memcached (\S+)"),
        "libraries": ", ".join(versions),
        # Other work on the machine slows every figure; the load says how much there was.
        "load average at the start": " ".join(f"{load:.2f}" for load in os.getloadavg()),
    }


def postgres_version():
    try:
        import psycopg

        from bench.settings import DEFAULT_DATABASE_URL

        url = os.environ.get("BENCH_DATABASE_URL") or DEFAULT_DATABASE_URL
        with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", connect_timeout=3) as pg:
            return pg.execute("SHOW server_version").fetchone()[0]
    except Exception as exc:
        return f"unknown ({type(exc).__name__})"


def program_version(argv, pattern):
    try:
        output = subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout
    except OSError:
        return "not installed"
    match = re.search(pattern, output)
    return match.group(1) if match else output.strip() or "unknown"


def write_docs(reports, seconds, started_at):
    rows = [row for report in reports for row in report["rows"]]
    missed = [row for row in rows if row["met"] is False]
    lines = [
        "# Benchmarks",
        "",
        f"Written by `make bench` (`bench/run.py`) on {started_at}: the next run rewrites",
        "this file. The targets are those of SPEC §7; every figure below comes from that one",
        "run, ours and the baseline side by side (the machine is shared and noisy: compare",
        "the ratios, not absolute times across runs). Raw numbers: `bench/results/*.json`.",
        "How to run and what each script does: `bench/` and"
        " [Development](development.md#benchmarks); how the figures were taken apart"
        " and cut: [Performance, how we measured](dev/performance.md).",
        "",
        markdown_table(rows),
        "",
        "## Machine",
        "",
        *[f"- {name}: {value}" for name, value in machine().items()],
        f"- `make bench` took {seconds:.0f} s",
        "",
        "## Per target",
    ]
    for report in reports:
        lines += ["", f"### {report['title']}", ""]
        lines += [f"- {note}" for note in report["notes"]] or ["- (no notes)"]
    lines += ["", "## What remains", ""]
    if missed:
        lines += [
            f"- **{row['target']}**: {row['ours']} against {row['baseline']}, "
            f"{row['ratio']} (goal {row['goal']})."
            for row in missed
        ]
        lines += ["", "The notes of each target above say why, as measured in this run."]
    else:
        lines.append("Every target with a goal was met in this run.")
    DOCS.parent.mkdir(exist_ok=True)
    DOCS.write_text("\n".join(lines) + "\n")


def main(argv):
    run_id = time.strftime("%Y%m%dT%H%M%S")
    started_at = time.strftime("%Y-%m-%d %H:%M %Z")
    started = time.monotonic()
    reports, failed = [], []
    for name, _ in scripts(argv):
        report, _ = run(name, run_id)
        (reports.append(report) if report else failed.append(name))
    seconds = time.monotonic() - started
    print(f"\n== all benchmarks ({seconds:.0f} s)")
    print(markdown_table([row for report in reports for row in report["rows"]]))
    if failed:
        print(f"failed: {', '.join(failed)}")
    if not argv and not failed:
        write_docs(reports, seconds, started_at)
        print(f"wrote {DOCS.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
