"""`pathways-gke preflight --stack S`: live checks before `pulumi up` (docs/day2.md). Exit 0 when nothing failed
(unknowns are listed), 1 when a check failed, 2 on bad input."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from ..gke.nodepools import head_pool_zone
from ..gke.cluster_spec import required_apis as feature_apis
from .checks import (FAIL, Check, api_checks, apis_by_project, bucket_check, machine_type_check,
                     permission_check, permissions_by_project, quota_checks, reservation_block_check,
                     reservation_check, version_check)


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


def run_checks(stack: Any, resources: Sequence[Any], google: Any) -> list[Check]:
    """`resources`: the offline plan's resources (type and inputs: each lands in its `project` input's project)."""
    project = stack.project
    out: list[Check] = []
    for where, why in sorted(apis_by_project(resources, project, feature_apis(stack)).items(),
                             key=lambda pw: (pw[0] != project, pw[0])):
        apis = sorted(why)
        suffix = "" if where == project else f" in {where}"
        answer, error = google.services(where, apis)
        out += api_checks(where, apis, answer.get("services") or [], why, suffix) if answer is not None else [
            Check(f"api {a}{suffix}", "unknown", f"could not ask Service Usage about project {where} ({error})",
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
    for where, wanted in sorted(permissions_by_project(resources, project).items(),
                                key=lambda pw: (pw[0] != project, pw[0])):
        answer, error = google.test_permissions(where, wanted)
        out.append(permission_check(where, wanted, (answer or {}).get("permissions", []) if answer is not None
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
    resources = plan_file(path, args.project_dir, stack=args.stack).resources
    try:
        from .google import Google

        checks = run_checks(stack, resources, Google())
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
