"""How long the fast lane takes, and which unmarked tests are slow enough to leave it.

    python bench/fast_lane.py             # run the fast lane (-m "not slow") 3 times, print the table
    python bench/fast_lane.py --write     # ... and rewrite the results block of bench/FAST_LANE.md
    python bench/fast_lane.py --runs 1    # one run

The rule the markers follow: a test whose call takes more than THRESHOLD seconds here is marked
`@pytest.mark.slow` (one by one, not per file), so the fast lane holds every fast test. Its target is 60 s of
wall time on the 2-core machine. Wall time is what the target is about; the CPU seconds of the pytest process
are printed beside it, because a busy machine distorts them least.
"""

from __future__ import annotations

import argparse
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "FAST_LANE.md"
THRESHOLD = 0.25
TARGET_SECONDS = 60.0
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


def run_fast_lane() -> tuple[float, float, int, list[tuple[float, str]]]:
    """One fast-lane run: wall seconds, CPU seconds, tests passed, and the unmarked tests over THRESHOLD."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-m", "not slow", "-q", "-p", "no:randomly",
                           "--durations=0", f"--durations-min={THRESHOLD}"],
                          cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"the fast lane failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    passed = int(re.search(r"(\d+) passed", proc.stdout).group(1))  # type: ignore[union-attr]
    slow = [(float(m.group(1)), m.group(2)) for m in re.finditer(r"^([\d.]+)s call\s+(\S+)", proc.stdout, re.M)]
    return wall, cpu, passed, slow


def report(runs: int) -> str:
    results = [run_fast_lane() for _ in range(runs)]
    wall = statistics.median(r[0] for r in results)
    cpu = statistics.median(r[1] for r in results)
    passed = results[-1][2]
    over = sorted({name: t for r in results for t, name in r[3]}.items(), key=lambda kv: -kv[1])
    lines = [
        f"Machine: {platform.system()} {platform.machine()}, {__import__('os').cpu_count()} cores; "
        f"Python {platform.python_version()}. Median of {runs} run(s), nothing else running.",
        "",
        "| lane | tests | wall | CPU | target | met |",
        "|---|---:|---:|---:|---:|:---:|",
        f"| fast (`make test-fast`) | {passed} | {wall:.0f} s | {cpu:.0f} s | {TARGET_SECONDS:.0f} s | "
        f"{'yes' if wall <= TARGET_SECONDS else 'no'} |",
        "",
        f"Unmarked tests whose call took more than {THRESHOLD} s in some run: "
        + (", ".join(f"`{n}` ({t:.2f} s)" for n, t in over) if over else "none") + ".",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    block = report(args.runs)
    print(block)
    if args.write:
        text = RESULTS.read_text()
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        RESULTS.write_text(f"{head}{BEGIN}\n{block}\n{END}{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
