"""A benchmark's table: printed, and saved with its raw numbers to bench/results/<name>.json."""

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
COLUMNS = ("target", "ours", "baseline", "ratio", "goal", "met")


@dataclass
class Row:
    """One line of the table; ``met`` is None for figures that have no goal of their own."""

    target: str
    ours: str
    baseline: str = "-"
    ratio: str = "-"
    goal: str = "-"
    met: bool | None = None

    def cells(self):
        met = {True: "met", False: "NOT met", None: "-"}[self.met]
        return [self.target, self.ours, self.baseline, self.ratio, self.goal, met]


@dataclass
class Report:
    """What one benchmark found: rows for the table, raw numbers, and sentences for the docs."""

    name: str
    title: str
    rows: list = field(default_factory=list)
    raw: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def row(self, *args, **kwargs):
        self.rows.append(Row(*args, **kwargs))

    def note(self, text):
        self.notes.append(text)

    def save(self):
        """Write bench/results/<name>.json and print the table and notes."""
        RESULTS.mkdir(exist_ok=True)
        data = asdict(self) | {
            "run_id": os.environ.get("BENCH_RUN_ID", ""),
            "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        (RESULTS / f"{self.name}.json").write_text(json.dumps(data, indent=2) + "\n")
        print(markdown_table(self.rows))
        for text in self.notes:
            print(f"- {text}")


def load(name):
    """A saved report as a dict, or None."""
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def markdown_table(rows):
    """Rows (``Row`` objects or their dicts) as a Markdown table."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        row = row if isinstance(row, Row) else Row(**row)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row.cells()) + " |")
    return "\n".join(lines)


def ratio(ours, baseline, digits=2):
    """ours / baseline as ``"0.42x"``."""
    return f"{ours / baseline:.{digits}f}x" if baseline else "-"
