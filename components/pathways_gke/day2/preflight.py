"""`pathways-gke preflight --stack S`: live checks before `pulumi up` (docs/day2.md). Exit 0 when nothing failed
(unknowns are listed), 1 when a check failed, 2 on bad input."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..gke.nodepools import head_pool_zone
from .checks import (FAIL, Check, api_checks, bucket_check, machine_type_check, permission_check, quota_checks,
                     required_apis, required_permissions, reservation_block_check, reservation_check,
                     version_check)


def region_of(location: str) -> str:
    """`us-east5-b` -> `us-east5`; a region stays itself."""
    parts = location.split("-")
    return "-".join(parts[:-1]) if len(parts) == 3 and len(parts[-1]) == 1 else location


def stack_buckets(stack: Any) -> dict[str, bool]:
    """bucket -> whether the stack creates it: the `buckets` section, then every gs:// path a workload reads."""
    out = {b.name: b.create for b in stack.buckets if not b.project or b.project == stack.project}
    for w in stack.workloads:
        paths = [getattr(getattr(w, "pathways", None), "gcs_scratch", None)]
        paths += [f"gs://{v.bucket}" for v in getattr(w, "gcs_fuse", None) or []]
        for path in paths:
            if path:
                out.setdefault(str(path)[len("gs://"):].split("/")[0], False)
    return out


def run_checks(stack: Any, resource_types: set[str], google: Any) -> list[Check]:
    project = stack.project
    out: list[Check] = []
    apis = required_apis(resource_types)
    answer, error = google.services(project, apis)
    out += api_checks(project, apis, answer.get("services") or []) if answer is not None else [
        Check(f"api {a}", "unknown", f"could not ask Service Usage ({error})",
              "the caller needs serviceusage.services.get") for a in apis]
    regions = sorted({region_of(p.zone) for p in stack.tpu_pools})
    for region in regions:
        answer, error = google.region(project, region)
        pools = [p for p in stack.tpu_pools if region_of(p.zone) == region]
        out += quota_checks(project, pools, region,
                            answer.get("quotas") if answer is not None else None, error)
    for pool in stack.tpu_pools:
        specs = pool.reservation_specs
        for spec in specs:  # one reservation for every slice, or one per slice
            slices = pool.slices if len(specs) == 1 else 1
            answer, error = google.reservation(spec.project or project, pool.zone, spec.name)
            out.append(reservation_check(pool, project, answer, error, spec, slices))
            if spec.block and answer is not None:
                block, error = google.reservation_block(spec.project or project, pool.zone, spec.name, spec.block)
                out.append(reservation_block_check(pool, project, block, error, spec, slices))
    machines = {(p.shape.machine_type, p.zone) for p in stack.tpu_pools}
    cpu_zone = head_pool_zone(stack)  # where the node-pool builder puts the CPU pool
    if stack.cpu_pool.create and region_of(cpu_zone) != cpu_zone:
        machines.add((stack.cpu_pool.machine_type, cpu_zone))
    for machine, zone in sorted(machines):
        answer, error = google.machine_type(project, zone, machine)
        out.append(machine_type_check(machine, zone, True if answer is not None else
                                      (False if error.startswith("404") else None), error))
    if stack.cluster.create:  # an adopted cluster keeps the version it runs
        answer, error = google.server_config(project, stack.cluster.location)
        out += version_check(stack, answer, error)
    for bucket, create in sorted(stack_buckets(stack).items()):
        answer, error = google.bucket(bucket)
        status = 200 if answer is not None else int(error.split()[0]) if error[:3].isdigit() else None
        out.append(bucket_check(bucket, create, status, error))
    wanted = required_permissions(resource_types)
    answer, error = google.test_permissions(project, wanted)
    out.append(permission_check(project, wanted, (answer or {}).get("permissions", []) if answer is not None
                                else None, error))
    return out


def render(checks: list[Check]) -> str:
    lines = []
    for c in checks:
        lines.append(f"[{c.status:>7}] {c.name}: {c.detail}")
        if c.fix and c.status != "pass":
            lines.append(f"          fix: {c.fix}")
    failed = sum(c.status == FAIL for c in checks)
    unknown = sum(c.status == "unknown" for c in checks)
    lines.append(f"{len(checks) - failed - unknown} passed, {failed} failed, {unknown} unknown")
    return "\n".join(lines) + "\n"


def cmd_preflight(args: argparse.Namespace) -> int:
    from ..config.stack import load_stack_file
    from ..plan.engine import plan_file, stack_file
    from .kube import Day2Error

    path = stack_file(Path(args.project_dir).resolve(), args.stack)
    if not path.exists():
        raise FileNotFoundError(f"no stack file {path}")
    stack = load_stack_file(path)
    types = {r.type for r in plan_file(path, args.project_dir, stack=args.stack).resources}
    try:
        from .google import Google

        checks = run_checks(stack, types, Google())
    except Day2Error as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps({"stack": args.stack, "project": stack.project,
                          "checks": [c.as_json() for c in checks]}, indent=2))
    else:
        print(render(checks), end="")
    return 1 if any(c.status == FAIL for c in checks) else 0


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("preflight", help="live checks before `pulumi up`: APIs, TPU quota, reservations, "
                                              "machine types, GKE version, buckets, permissions",
                            description="Asks Google's APIs (Application Default Credentials) what a `pulumi up` "
                                        "of the stack would run into. Exit 0 nothing failed, 1 a check failed, "
                                        "2 bad input.")
    p.add_argument("--stack", required=True, help="stack name (stacks/Pulumi.<stack>.yaml of the project)")
    p.add_argument("--project-dir", type=Path, default=Path("."), help="Pulumi project directory")
    p.add_argument("--json", action="store_true", help="print the checks as JSON (docs/day2.md)")
    p.set_defaults(handler=cmd_preflight)
