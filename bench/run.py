"""Run every benchmark script in bench/ (``bench_*.py``) and print their tables."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main():
    scripts = sorted(HERE.glob("bench_*.py"))
    if not scripts:
        print("No benchmarks yet: the targets of SPEC §7 get their scripts with their issue.")
        return 0
    failed = 0
    for script in scripts:
        print(f"== {script.stem}", flush=True)
        failed += subprocess.run([sys.executable, str(script)], cwd=HERE.parent).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
