"""The offline plan against XPK's dry-runs of the same deployment, and against a previous release, whole process.

    python bench/vs_xpk.py --xpk /path/to/xpk-venv/bin/xpk              # 5 pairs, medians and the pair-by-pair ratio
    python bench/vs_xpk.py --xpk … --pairs 9 --previous /path/to/a/checkout/of/the/previous/release

The deployment: a GKE cluster with a CPU pool for the Pathways head (n2-standard-64), 4 × v6e-16 slices on demand and
one Pathways training workload. Ours is one process, `pathways-gke plan --config STACK` (the plan, the identities,
the policy pack and the pod fit: what `make plan` runs). XPK's is the two processes a user runs, each with
`--dry-run` (it prints every gcloud/kubectl command and runs none): `xpk cluster create-pathways` then
`xpk workload create-pathways`. Pairs alternate (ours, XPK, ours, XPK, …) so a drift of the shared machine's speed
hits both; the ratio is taken pair by pair and its median reported, with the medians of wall and CPU seconds.
Results: bench/VS_XPK.md. `--previous DIR` adds a third lane: the same plan by the checkout in DIR (e.g. `git archive
<commit> | tar -x -C DIR`), run by this interpreter with DIR/components first on the path.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CLUSTER, PROJECT, ZONE, REGION = "xpk-bench", "acme-bench", "us-east5-b", "us-east5"
IMAGE, COMMAND = "us-docker.pkg.dev/acme-bench/train/trainer:2026-11-20", "python3 train.py"


def stack() -> dict:
    """The deployment as a stack file's config."""
    return {"config": {
        "gcp:project": PROJECT,
        "pathways-gke:cluster": {"name": CLUSTER, "location": REGION, "deletionProtection": False},
        "pathways-gke:cpuPool": {"machineType": "n2-standard-64", "minNodes": 1, "maxNodes": 2},
        "pathways-gke:tpuPools": [{"name": "main", "type": "v6e-16", "slices": 4, "zone": ZONE}],
        "pathways-gke:workloads": [{
            "name": "train", "runtime": "pathways", "tpuPool": "main", "image": IMAGE, "command": COMMAND,
            "pathways": {"version": "jax-0.9.2", "gcsScratch": f"gs://{PROJECT}-pathways/tmp"}}],
    }}


def xpk_commands(xpk: str) -> list[list[str]]:
    common = ["--cluster", CLUSTER, "--tpu-type", "v6e-16", "--num-slices", "4", "--project", PROJECT,
              "--zone", ZONE, "--dry-run"]
    return [[xpk, "cluster", "create-pathways", *common, "--on-demand", "--pathways-gce-machine-type",
             "n2-standard-64"],
            [xpk, "workload", "create-pathways", *common, "--workload", "train", "--docker-image", IMAGE,
             "--command", COMMAND]]


def run(commands: list[list[str]], cwd: Path, source: Path = ROOT) -> tuple[float, float]:
    """(wall, CPU seconds of the children) of running `commands` one after another, with `source`/components on
    the path; a failure stops the bench."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    for command in commands:
        done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(source / "components")})
        if done.returncode != 0:
            sys.exit(f"{' '.join(command[:3])} … failed ({done.returncode}): {done.stderr[-2000:]}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xpk", required=True, help="the xpk executable (xpk==1.16.0 in its own virtualenv)")
    parser.add_argument("--ours", help="the pathways-gke executable (default: this checkout's, run by this "
                                       "interpreter as `python -m pathways_gke.cli`)")
    parser.add_argument("--previous", type=Path, help="a checkout of an older release, planned the same way")
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "Pulumi.bench.yaml"
        config.write_text(yaml.safe_dump(stack(), sort_keys=False))
        ours = [args.ours] if args.ours else [sys.executable, "-m", "pathways_gke.cli"]
        lanes = {"ours": [[*ours, "plan", "--config", str(config), "--project-dir", str(ROOT)]],
                 "xpk": xpk_commands(args.xpk)}
        sources = {"ours": ROOT, "xpk": ROOT}
        if args.previous:
            lanes["previous"] = [[sys.executable, "-m", "pathways_gke.cli", "plan", "--config", str(config),
                                  "--project-dir", str(args.previous)]]
            sources["previous"] = args.previous
        for lane, commands in lanes.items():  # one warm-up each: the page cache, .pyc files
            run(commands, Path(tmp), sources[lane])
        times: dict[str, list[tuple[float, float]]] = {lane: [] for lane in lanes}
        for _ in range(args.pairs):
            for lane, commands in lanes.items():
                times[lane].append(run(commands, Path(tmp), sources[lane]))
    print(f"{args.pairs} pairs on {os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f} at the end)")
    for lane, samples in times.items():
        walls, cpus = [w for w, _ in samples], [c for _, c in samples]
        print(f"{lane:9} wall median {statistics.median(walls):.2f} s (min {min(walls):.2f}, max {max(walls):.2f});"
              f" CPU median {statistics.median(cpus):.2f} s")
    for lane in lanes:
        if lane != "ours":
            ratios = [o[0] / x[0] for o, x in zip(times["ours"], times[lane])]
            cpu_ratios = [o[1] / x[1] for o, x in zip(times["ours"], times[lane])]
            print(f"ours / {lane}: wall ratio median {statistics.median(ratios):.2f} "
                  f"(min {min(ratios):.2f}, max {max(ratios):.2f}); CPU ratio median "
                  f"{statistics.median(cpu_ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
