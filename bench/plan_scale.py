"""Offline plan time and peak memory against the SDK's floor, for 1 … 256 slices with 8 workloads.

    python bench/plan_scale.py                      # measure, print the table and the targets
    python bench/plan_scale.py --write              # also rewrite the results block of bench/RESULTS.md
    python bench/plan_scale.py --slices 1,16 --repeat 1   # a quick look

Every number comes from a fresh interpreter (bench/measure.py), the median of --repeat runs:
`ours` plans a prod-like stack (one v6e-16 group of N reserved slices, Kueue on, 6 Pathways + 2 JAX
workloads, every at-scale feature on: image streaming and an image-cache disk on every pool, Cloud DNS,
controllers sized for the cluster, managed Prometheus, console links and two alert policies per workload)
exactly as `pathways-gke plan` does; `at-scale off` plans the same stack with all of those switched off; the floors register the same resources without our
program: `typed` (the real SDK classes, required arguments only: bare resources), `payload` (the same
inputs, no logic) and `bare` (generic resources, no inputs). Targets: 256 slices ≤ 5 s and
≤ 500 MB, ≤ 1.3× the floor, T(256) / T(16) ≤ 20.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MEASURE = Path(__file__).with_name("measure.py")
RESULTS = Path(__file__).with_name("RESULTS.md")
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
SLICES = (1, 4, 16, 64, 256)
WORKLOADS = 8
FLOORS = ("typed", "payload", "bare")
TARGET_SECONDS, TARGET_MB, TARGET_RATIO, TARGET_GROWTH = 5.0, 500.0, 1.3, 20.0


CACHE_DISK = "projects/acme-ml-prod/global/images/pathways-cache-2026-11-20"


def at_scale_features(config: dict, on: bool) -> dict:
    """Every feature of docs/at-scale.md on (alerts and image-cache disks included) or off."""
    config = copy.deepcopy(config)
    pools = [config.setdefault("pathways-gke:cpuPool", {}), *config["pathways-gke:tpuPools"]]
    for pool in pools:
        pool["imageStreaming"] = on
        if on:
            pool["imageCacheDisk"] = CACHE_DISK
    config["pathways-gke:cluster"]["dns"] = "cloud-dns" if on else "gke-default"
    for addon in ("jobset", "kueue"):
        config.setdefault(f"pathways-gke:{addon}", {})["sizeForCluster"] = on
    config["pathways-gke:observability"] = {"managedPrometheus": on, "consoleLinks": on, "alerts": on}
    return config


def scale_config(slices: int, workloads: int = WORKLOADS, at_scale: bool = True) -> dict:
    """stacks/Pulumi.prod.yaml with its TPU group at `slices` slices and `workloads` workloads on it."""
    sys.path.insert(0, str(ROOT / "components"))
    from pathways_gke.config.stack import read_stack_file

    config = read_stack_file(ROOT / "stacks" / "Pulumi.prod.yaml")
    config["pathways-gke:tpuPools"][0]["slices"] = slices
    pathways = config["pathways-gke:workloads"][0]
    jax_tpu = {"name": "jax-tpu", "runtime": "jax", "tpuPool": pathways["tpuPool"], "image": pathways["image"],
               "command": "python3 -m trainer.jax_main", "maxRestarts": 2}
    jax_cpu = {"name": "jax-cpu", "runtime": "jax", "image": pathways["image"], "command": "python3 smoke.py",
               "jax": {"processes": 4}}
    jax = [jax_tpu, jax_cpu][:max(0, workloads - 6)]
    config["pathways-gke:workloads"] = [
        {**copy.deepcopy(pathways), "name": f"train-{i}"} for i in range(workloads - len(jax))] + jax
    return at_scale_features(config, at_scale)


def measure(*args: str) -> dict:
    out = subprocess.run([sys.executable, str(MEASURE), *args], cwd=ROOT, capture_output=True, text=True,
                         check=False, env={**os.environ, "PYTHONPATH": str(ROOT / "components")})
    if out.returncode != 0:
        raise SystemExit(f"measure {' '.join(args)} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def cli_run(config_path: Path) -> dict:
    """`pathways-gke plan --config FILE --json` as a user runs it: wall time and the process's peak RSS."""
    import time

    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "pathways_gke", "plan", "--config", str(config_path), "--json",
                             "--project-dir", str(ROOT)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT / "components")})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"pathways-gke plan failed:\n{proc.stderr.read().decode()}")
    return {"wall": wall, "peakRssMb": usage.ru_maxrss / 1024}


def median_of(runs: list[dict]) -> dict:
    def med(path):
        values = []
        for r in runs:
            v = r
            for key in path:
                v = v[key]
            values.append(v)
        return statistics.median(values)

    return {"resources": runs[0]["resources"], "imports": med(("imports", "wall")), "run": med(("run", "wall")),
            "warm": med(("warm", "wall")), "warmCpu": med(("warm", "cpu")), "peakRssMb": med(("peakRssMb",)),
            "warmSamples": [r["warm"]["wall"] for r in runs]}


def bench(slices: tuple[int, ...], repeat: int, workdir: Path) -> dict:
    rows = {}
    for n in slices:
        config_path = workdir / f"Pulumi.scale-{n}.yaml"
        config_path.write_text(yaml.safe_dump({"config": scale_config(n)}, sort_keys=False))
        plan_path = workdir / f"plan-{n}.json"
        ours = [measure("ours", "--config", str(config_path), "--write-plan", str(plan_path)) for _ in range(repeat)]
        cli = [cli_run(config_path) for _ in range(repeat)]
        row = {"slices": n, "ours": median_of(ours),
               "cli": {"wall": statistics.median(c["wall"] for c in cli),
                       "peakRssMb": statistics.median(c["peakRssMb"] for c in cli)}}
        row["unrecorded"] = median_of([measure("ours-unrecorded", "--config", str(config_path))
                                       for _ in range(repeat)])
        off_path = workdir / f"Pulumi.scale-{n}-off.yaml"
        off_path.write_text(yaml.safe_dump({"config": scale_config(n, at_scale=False)}, sort_keys=False))
        row["off"] = median_of([measure("ours", "--config", str(off_path)) for _ in range(repeat)])
        row["typed"] = median_of([measure("typed", "--plan", str(plan_path)) for _ in range(repeat)])
        row["payload"] = median_of([measure("payload", "--plan", str(plan_path)) for _ in range(repeat)])
        row["bare"] = median_of([measure("bare", "--count", str(row["ours"]["resources"])) for _ in range(repeat)])
        rows[n] = row
        print(f"  {n:>4} slices: {row['ours']['resources']} resources, CLI {row['cli']['wall']:.2f} s, "
              f"plan {row['ours']['warm']:.2f} s, typed floor {row['typed']['warm']:.2f} s, "
              f"payload floor {row['payload']['warm']:.2f} s", file=sys.stderr)
    return rows


def targets(rows: dict) -> list[tuple[str, str, bool]]:
    """(target, measured, met) for the targets above; each needs 16 and 256 slices in the run."""
    if 256 not in rows or 16 not in rows:
        return []
    big, mid = rows[256], rows[16]
    ratio = big["ours"]["warm"] / big["typed"]["warm"]
    growth = big["ours"]["warm"] / mid["ours"]["warm"]
    return [
        ("256 slices ≤ 5 s (the whole `pathways-gke plan --json` command)", f"{big['cli']['wall']:.2f} s",
         big["cli"]["wall"] <= TARGET_SECONDS),
        ("256 slices ≤ 500 MB (its peak RSS)", f"{big['cli']['peakRssMb']:.0f} MB",
         big["cli"]["peakRssMb"] <= TARGET_MB),
        ("≤ 1.3× the floor (plan vs typed floor) at 256 slices", f"{ratio:.2f}×", ratio <= TARGET_RATIO),
        ("linear: plan T(256) / T(16) ≤ 20", f"{growth:.2f}", growth <= TARGET_GROWTH),
    ]


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    mem = ""
    if Path("/proc/meminfo").exists():
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB"
    import pulumi

    versions = []
    for dist in ("pulumi", "pulumi-gcp", "pulumi-kubernetes", "pydantic"):
        try:
            from importlib.metadata import version

            versions.append(f"{dist} {version(dist)}")
        except Exception:  # noqa: BLE001 (a missing distribution is just not listed)
            pass
    del pulumi
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}){mem}; "
            f"Python {platform.python_version()}; {', '.join(versions)}")


def table(rows: dict) -> str:
    lines = ["| slices | resources | CLI wall | CLI peak RSS | imports | first plan | plan | plan, unrecorded | "
             "floor typed | plan / typed | floor payload | plan / payload | floor bare | "
             "plan, at-scale off (resources) | at-scale cost | at-scale cost, CPU |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n, r in sorted(rows.items()):
        o, typed, payload = r["ours"], r["typed"]["warm"], r["payload"]["warm"]
        lines.append(f"| {n} | {o['resources']} | {r['cli']['wall']:.2f} s | {r['cli']['peakRssMb']:.0f} MB | "
                     f"{o['imports']:.2f} s | {o['run']:.2f} s | {o['warm']:.2f} s | {r['unrecorded']['warm']:.2f} s | "
                     f"{typed:.2f} s | {o['warm'] / typed:.2f}× | {payload:.2f} s | {o['warm'] / payload:.2f}× | "
                     f"{r['bare']['warm']:.2f} s | {r['off']['warm']:.2f} s ({r['off']['resources']}) | "
                     f"{o['warm'] - r['off']['warm']:+.2f} s | "
                     f"{o['warmCpu']:.2f} − {r['off']['warmCpu']:.2f} = {o['warmCpu'] - r['off']['warmCpu']:+.2f} s |")
    return "\n".join(lines)


def report(rows: dict, repeat: int) -> str:
    out = [f"Machine: {machine()}.", f"Median of {repeat} fresh-interpreter runs each.", "", table(rows), ""]
    checks = targets(rows)
    if checks:
        out += ["| target | measured | met |", "|---|---:|:---:|"]
        out += [f"| {name} | {value} | {'yes' if ok else '**no**'} |" for name, value, ok in checks]
    return "\n".join(out) + "\n"


def write_results(text: str) -> None:
    current = RESULTS.read_text()
    head, _, rest = current.partition(BEGIN)
    _, _, tail = rest.partition(END)
    RESULTS.write_text(f"{head}{BEGIN}\n{text}{END}{tail}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--slices", default=",".join(map(str, SLICES)), help="comma-separated slice counts")
    parser.add_argument("--repeat", type=int, default=3, help="fresh-interpreter runs per measurement (median)")
    parser.add_argument("--write", action="store_true", help="rewrite the results block of bench/RESULTS.md")
    parser.add_argument("--json", type=Path, help="also write the raw measurements here")
    args = parser.parse_args()
    slices = tuple(int(s) for s in args.slices.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        rows = bench(slices, args.repeat, Path(tmp))
    text = report(rows, args.repeat)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({str(k): v for k, v in rows.items()}, indent=2) + "\n")
    if args.write:
        write_results(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
