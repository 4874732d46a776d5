"""One measurement in a fresh interpreter (run by plan_scale.py; prints one JSON line).

    python bench/measure.py ours  --config FILE        the offline plan of a stack file, as `pathways-gke plan`
    python bench/measure.py ours-unrecorded --config FILE   the same program under the stock MockMonitor
                                                        (what recording parents, edges and inputs costs)
    python bench/measure.py bare  --count N            the floor: N bare resources registered under mocks
    python bench/measure.py typed --plan PLAN.json     the floor: the plan's resources, each its real SDK class
                                                        (NodePool, JobSet, ...) with only required arguments
    python bench/measure.py payload --plan PLAN.json   the plan's resources with their recorded inputs and
                                                        output slots: the SDK cost of these exact resources

Phases: `imports` (interpreter start excluded), `run` (program start to the last registration, what the
targets are about) and the peak RSS of the process. CPU seconds are reported beside wall seconds because
CPU time is what a busy 2-core CI machine distorts least.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def stamp() -> tuple[float, float]:
    return time.perf_counter(), cpu()


def since(start: tuple[float, float]) -> dict[str, float]:
    wall, cpu_time = stamp()
    return {"wall": round(wall - start[0], 4), "cpu": round(cpu_time - start[1], 4)}


def plan_ours(config_path: str, write_plan: str | None = None, recorded: bool = True) -> dict:
    start = stamp()
    from pathways_gke.config.stack import read_stack_file
    from pathways_gke.plan.engine import close_event_loop, plan_config, program_for, project_name
    from pathways_gke.program import main as _program  # noqa: F401  (imports the components and SDK modules)

    imports = since(start)
    config = read_stack_file(Path(config_path))
    if not recorded:
        _use_stock_monitor()

    def plan_once():
        return plan_config(config, stack="bench", project=project_name(ROOT), program=program_for(ROOT))

    start = stamp()
    plan = plan_once()
    run = since(start)
    start = stamp()
    plan_once()
    warm = since(start)
    text = plan.dumps()
    if write_plan:
        Path(write_plan).write_text(text)
    close_event_loop()
    return {"resources": len(plan.resources), "imports": imports, "run": run, "warm": warm, "planBytes": len(text)}


def _use_stock_monitor() -> None:
    """Run the plan under the SDK's own MockMonitor, which records nothing."""
    from pulumi.runtime import mocks

    from pathways_gke.plan import engine

    class StockMonitor(mocks.MockMonitor):
        records: list = []
        stack_outputs: dict = {}

    engine._make_monitor_class = lambda: StockMonitor


def _run_floor(program) -> tuple[dict[str, float], dict[str, float]]:
    """(first run, second run) of `program` under mocks, each in a fresh root Stack and event loop."""
    import asyncio

    import pulumi
    from pulumi.runtime import settings

    from pathways_gke.plan.engine import preview_mocks

    times = []
    for _ in range(2):
        asyncio.set_event_loop(asyncio.new_event_loop())
        settings.set_root_resource(None)
        # the offline plan's own mocks (inputs echoed as state), so floors and plan pay the same echo
        pulumi.runtime.set_mocks(preview_mocks(), project="bench", stack="bench", preview=True)
        start = stamp()
        pulumi.runtime.test(program)()
        times.append(since(start))
    return times[0], times[1]


def plan_bare(count: int) -> dict:
    start = stamp()
    import pulumi

    imports = since(start)

    def program():
        for i in range(count):
            pulumi.CustomResource("bench:index:Bare", f"r{i}", {})

    run, warm = _run_floor(program)
    return {"resources": count, "imports": imports, "run": run, "warm": warm}


def _sdk_classes() -> dict:
    """Type token -> a loader of the SDK class a program uses for it (anything else: a generic resource)."""
    import pulumi_gcp as gcp
    import pulumi_kubernetes as k8s

    # loaders, not classes: the SDK's modules load lazily and a program pays only for what it uses
    return {
        "gcp:container/cluster:Cluster": lambda: gcp.container.Cluster,
        "gcp:container/nodePool:NodePool": lambda: gcp.container.NodePool,
        "gcp:projects/iAMMember:IAMMember": lambda: gcp.projects.IAMMember,
        "gcp:serviceaccount/account:Account": lambda: gcp.serviceaccount.Account,
        "gcp:compute/firewall:Firewall": lambda: gcp.compute.Firewall,
        "gcp:compute/resourcePolicy:ResourcePolicy": lambda: gcp.compute.ResourcePolicy,
        "pulumi:providers:kubernetes": lambda: k8s.Provider,
        "kubernetes:core/v1:ConfigMap": lambda: k8s.core.v1.ConfigMap,
        "kubernetes:core/v1:Namespace": lambda: k8s.core.v1.Namespace,
        "kubernetes:core/v1:Secret": lambda: k8s.core.v1.Secret,
        "kubernetes:scheduling.k8s.io/v1:PriorityClass": lambda: k8s.scheduling.v1.PriorityClass,
        "kubernetes:yaml/v2:ConfigFile": lambda: k8s.yaml.v2.ConfigFile,
    }


# only the arguments the SDK classes refuse to go without
REQUIRED = {
    "gcp:container/nodePool:NodePool": {"cluster": "c"},
    "gcp:projects/iAMMember:IAMMember": {"project": "p", "role": "r", "member": "m"},
    "gcp:serviceaccount/account:Account": {"account_id": "a"},
    "gcp:compute/firewall:Firewall": {"network": "n"},
    "kubernetes:scheduling.k8s.io/v1:PriorityClass": {"value": 1},
    "kubernetes:yaml/v2:ConfigFile": {"file": "x.yaml"},
}


def _is_crd_type(type_: str) -> bool:
    """kubernetes:<group>/<version>:<Kind> of a custom resource (JobSet, Kueue objects)."""
    return type_.startswith("kubernetes:") and "." in type_.split(":")[1] and not type_.startswith(
        ("kubernetes:scheduling.k8s.io", "kubernetes:apiextensions.k8s.io"))


def _output_names(cls) -> list[str]:
    """The output properties a typed SDK resource registers (as None) besides its inputs."""
    import inspect

    return [getattr(v.fget, "_pulumi_name", None) or n
            for n, v in inspect.getmembers(cls, lambda v: isinstance(v, property))
            if n not in ("id", "urn", "pulumi_resource_name", "pulumi_resource_type")]


def _floor(plan_path: str, make, output_slots: bool = False) -> dict:
    """Register the plan's resources, parents first, each made by `make(resource, opts, classes)`."""
    start = stamp()
    import pulumi

    resources = _parents_first(json.loads(Path(plan_path).read_text())["resources"])
    used = {r["type"] for r in resources}
    classes = {t: load() for t, load in _sdk_classes().items() if t in used}  # what this program imports
    if output_slots:
        classes = {t: (cls, _output_names(cls)) for t, cls in classes.items()}
    imports = since(start)

    def program():
        made: dict[str, pulumi.Resource] = {}
        for r in resources:
            opts = pulumi.ResourceOptions(parent=made.get(r["parent"]))
            if not r["custom"] and not r.get("remote"):
                made[r["urn"]] = pulumi.ComponentResource(r["type"], r["name"], None, opts)
            else:
                made[r["urn"]] = make(r, opts, classes)

    run, warm = _run_floor(program)
    return {"resources": len(resources), "imports": imports, "run": run, "warm": warm}


def plan_typed(plan_path: str) -> dict:
    """The floor: the same resources as bare as the SDK allows (real classes, required arguments only)."""
    import pulumi

    def make(r, opts, classes):
        import pulumi_kubernetes as k8s

        cls = classes.get(r["type"])
        if cls is not None:
            return cls(r["name"], opts=opts, **REQUIRED.get(r["type"], {}))
        if _is_crd_type(r["type"]):
            group_version, kind = r["type"].split(":")[1:]
            return k8s.apiextensions.CustomResource(r["name"], api_version=group_version, kind=kind, opts=opts)
        return pulumi.CustomResource(r["type"], r["name"], {}, opts)

    return _floor(plan_path, make)


def plan_payload(plan_path: str) -> dict:
    """The same resources with the same inputs, registered with no program logic at all: what any program
    that creates exactly these resources pays the SDK (each carries its class's output slots, as typed
    resources do)."""
    import pulumi

    def make(r, opts, classes):
        _, outputs = classes.get(r["type"], (None, ()))
        props = {name: None for name in outputs}
        props.update(r["inputs"])
        if r.get("remote"):
            return pulumi.ComponentResource(r["type"], r["name"], props, opts, remote=True)
        if r["type"].startswith("pulumi:providers:"):
            return pulumi.ProviderResource(r["type"].split(":")[-1], r["name"], props, opts)
        return pulumi.CustomResource(r["type"], r["name"], props, opts)

    return _floor(plan_path, make, output_slots=True)


def _parents_first(resources: list[dict]) -> list[dict]:
    by_urn = {r["urn"]: r for r in resources}

    def depth(r):
        return 0 if not r["parent"] or r["parent"] not in by_urn else 1 + depth(by_urn[r["parent"]])

    return sorted(resources, key=lambda r: (depth(r), r["urn"]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=("ours", "ours-unrecorded", "bare", "typed", "payload"))
    parser.add_argument("--config")
    parser.add_argument("--count", type=int)
    parser.add_argument("--plan")
    parser.add_argument("--write-plan", help="ours: also write the plan JSON here (the input of replay)")
    args = parser.parse_args()
    if args.kind in ("ours", "ours-unrecorded"):
        result = plan_ours(args.config, args.write_plan, recorded=args.kind == "ours")
    elif args.kind == "bare":
        result = plan_bare(args.count)
    elif args.kind == "typed":
        result = plan_typed(args.plan)
    else:
        result = plan_payload(args.plan)
    result["peakRssMb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
