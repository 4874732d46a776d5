"""`pathways-gke status | wait | logs` (and `preflight`, from preflight.py): the day-2 commands.

Exit codes (docs/day2.md): 0 ok / reached; 1 `wait` saw another terminal state, or `logs` found no pod yet;
2 bad input (unknown workload, role or slice, unusable kubeconfig, unreachable server, forbidden);
4 `wait` timed out; 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

from .. import naming
from .state import (LWS, NOT_YET, REACHED, WAIT_TARGETS, WorkloadStatus, progress_line, verdict,
                    wait_problem)

EXIT_OK, EXIT_OTHER, EXIT_INVALID, EXIT_TIMEOUT = 0, 1, 2, 4
EXIT_INTERRUPTED = 130  # the shell's code for SIGINT
DEFAULT_INTERVAL = 5.0


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from .kube import Day2Error
        from .pods import RoleError

        try:
            return handler(args)
        except Day2Error as exc:
            print(f"error: {exc}", file=sys.stderr)
            return exc.code
        except RoleError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_INVALID
        except KeyboardInterrupt:  # Ctrl-C on `wait` or `logs -f`: no traceback
            print("interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
    return run


def add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--kubeconfig", type=Path,
                        help="kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
    source.add_argument("--stack", help="use this stack's `kubeconfig` output (needs the Pulumi CLI) and its "
                                        "namespace")
    parser.add_argument("--project-dir", type=Path, default=Path("."),
                        help="Pulumi project directory, with --stack (default: the current directory)")
    parser.add_argument("--context", help="kubeconfig context (default: its current-context)")
    parser.add_argument("--namespace", "-n", help="namespace (default: the stack's, else the context's, else default)")


def stack_config(args: argparse.Namespace) -> Any:
    """The stack's validated config (the one reader), or None without --stack."""
    if not getattr(args, "stack", None):
        return None
    from ..config.stack import load_stack_file
    from ..plan.engine import stack_file

    path = stack_file(Path(args.project_dir).resolve(), args.stack)
    if not path.exists():
        raise FileNotFoundError(f"no stack file {path}")
    return load_stack_file(path)


def connect(args: argparse.Namespace) -> Any:
    from .kube import connect as kube_connect

    stack = stack_config(args)
    return kube_connect(kubeconfig=args.kubeconfig, context=args.context, namespace=args.namespace,
                        stack=args.stack, project_dir=Path(args.project_dir),
                        default_namespace=stack.namespace if stack is not None else "default")


# --- status ------------------------------------------------------------------------------------------------------


def render_status(statuses: list[WorkloadStatus]) -> str:
    if not statuses:
        return "no pathways-gke workloads\n"
    rows = [("NAME", "KIND", "STATE", "RESTARTS", "READY", "CONDITION")]
    for s in statuses:
        c = s.condition
        rows.append((s.name, s.kind, s.state, "-" if s.restarts is None else str(s.restarts),
                     f"{s.ready}/{s.total} {s.unit}", f"{c.type} {c.reason}".strip() if c else "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1] for row in rows]
    out = [line.rstrip() for line in lines]
    for s in statuses:
        out.append("")
        out.append(f"{s.name}:")
        for g in s.groups:
            if s.kind == LWS:  # groups of replicas: no Job counts
                out.append(f"  groups: {g.ready}/{g.replicas} ready, {g.active} created")
                continue
            out.append(f"  {g.name}: {g.ready}/{g.replicas} jobs ready, {g.active} active, {g.succeeded} succeeded, "
                       f"{g.failed} failed" + (f", {g.suspended} suspended" if g.suspended else ""))
        for a in s.admission:
            queue = f" on {a.cluster_queue}" if a.cluster_queue else ""
            out.append(f"  kueue {a.workload}: {a.state}{queue}" + (f" ({a.reason}: {a.message})" if a.message else ""))
        if s.condition and s.condition.message:
            out.append(f"  {s.condition.type}: {s.condition.message}")
    return "\n".join(out) + "\n"


@_guarded
def cmd_status(args: argparse.Namespace) -> int:
    cluster = connect(args)
    statuses = cluster.statuses(args.workloads)
    if args.json:
        print(json.dumps({"namespace": cluster.namespace, "workloads": [s.as_json() for s in statuses]}, indent=2))
    else:
        print(render_status(statuses), end="")
    return EXIT_OK


# --- wait --------------------------------------------------------------------------------------------------------

_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s?)?$")


def duration(text: str) -> float:
    """`90`, `90s`, `15m`, `1h30m` -> seconds (argparse type)."""
    match = _DURATION.match(text.strip())
    if not text.strip() or match is None or not any(match.groups()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration; use e.g. 90s, 15m, 1h30m or seconds")
    h, m, s = match.groups()
    return int(h or 0) * 3600 + int(m or 0) * 60 + float(s or 0)


def _talkative() -> bool:
    return sys.stderr.isatty() and not os.environ.get("CI")


@_guarded
def cmd_wait(args: argparse.Namespace) -> int:
    cluster = connect(args)
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    talk, last = _talkative(), ""
    while True:
        status = cluster.statuses([args.workload])[0]
        problem = wait_problem(status, args.target)
        if problem:
            print(f"error: --for {args.target}: {problem}", file=sys.stderr)
            return EXIT_INVALID
        result = verdict(status, args.target)
        line = progress_line(status)
        if talk and line != last:
            print(line, file=sys.stderr, flush=True)
            last = line
        if result != NOT_YET:
            if args.json:
                print(json.dumps({"result": result, "for": args.target, "workload": status.as_json()}, indent=2))
            else:
                note = "" if result == REACHED else f" (waited for {args.target})"
                print(line + note)
            return EXIT_OK if result == REACHED else EXIT_OTHER
        if deadline is not None and time.monotonic() >= deadline:
            if args.json:
                print(json.dumps({"result": "timeout", "for": args.target, "workload": status.as_json()}, indent=2))
            else:
                print(f"timed out waiting for {args.target}: {line}")
            return EXIT_TIMEOUT
        pause = args.interval if deadline is None else max(0.0, min(args.interval, deadline - time.monotonic()))
        time.sleep(pause)


# --- logs --------------------------------------------------------------------------------------------------------


@_guarded
def cmd_logs(args: argparse.Namespace) -> int:
    from .pods import RoleError, choose_container, choose_pod, logging_query, pod_query

    cluster = connect(args)
    kind, obj = cluster.workloads([args.workload])[0]
    query = pod_query(obj, kind, args.role, args.slice)
    pod = choose_pod(cluster.pods(query.selector), query)
    stack = stack_config(args)
    where = logging_query(args.workload, cluster.namespace,
                          cluster=stack.cluster.name if stack else None,
                          location=stack.cluster.location if stack else None,
                          project=stack.project if stack else None)
    footer = f"\nthe other containers of {args.workload} in Cloud Logging (Logs Explorer query):\n{where}\n"
    if pod is None and query.client is not None:  # an unknown client is bad input, not "retry later"
        clients = sorted({str((p.get("metadata", {}).get("labels") or {}).get(naming.CLIENT_LABEL))
                          for p in cluster.pods({naming.WORKLOAD_LABEL: args.workload})
                          if naming.CLIENT_LABEL in (p.get("metadata", {}).get("labels") or {})})
        if clients:
            raise RoleError(f"--role proxy-{query.client}: {args.workload} has no client {query.client!r}; roles: "
                            f"leader, worker, {', '.join('proxy-' + c for c in clients)}")
    if pod is None:
        state = cluster.statuses([args.workload])[0].state
        print(f"no pod yet for {query.what} (the workload is {state}); retry later", file=sys.stderr)
        print(footer, file=sys.stderr, end="")
        return EXIT_OTHER
    container = choose_container(pod, args.container)
    name = str(pod["metadata"]["name"])
    print(f"==> {name} / {container} ({query.what})", file=sys.stderr, flush=True)
    if args.follow:
        print(footer, file=sys.stderr, end="", flush=True)
    out = sys.stdout.buffer
    for chunk in cluster.log_lines(name, container, follow=args.follow, tail=args.tail):
        out.write(chunk)
        out.flush()
    if not args.follow:
        print(footer, file=sys.stderr, end="")
    return EXIT_OK


def register(commands: argparse._SubParsersAction) -> None:
    status = commands.add_parser("status", help="state, restarts and readiness of the deployed workloads",
                                 description="Every pathways-gke workload (JobSets and LeaderWorkerSets labelled "
                                             "pathways-gke/workload) with its state, restarts, per replicated job "
                                             "or group counts, Kueue admission and latest condition.")
    status.add_argument("workloads", nargs="*", metavar="WORKLOAD", help="only these workloads (default: all)")
    add_cluster_arguments(status)
    status.add_argument("--json", action="store_true", help="print JSON (schema in docs/day2.md)")
    status.set_defaults(handler=cmd_status)

    wait = commands.add_parser("wait", help="wait until a workload is completed, running, ready or failed",
                               description="Exit 0 when reached, 1 when the workload reached another terminal "
                                           "state, 2 on bad input, 4 on timeout.")
    wait.add_argument("workload", metavar="WORKLOAD")
    wait.add_argument("--for", dest="target", required=True, choices=WAIT_TARGETS,
                      help="completed / failed: the JobSet's terminal state; running: started (a Job or group "
                           "ready); ready: every Job or group ready")
    wait.add_argument("--timeout", type=duration, help="give up after this long (90s, 15m, 1h30m; default: never)")
    wait.add_argument("--interval", type=duration, default=DEFAULT_INTERVAL,
                      help=f"seconds between polls (default {DEFAULT_INTERVAL:g})")
    add_cluster_arguments(wait)
    wait.add_argument("--json", action="store_true", help="print the final observation as JSON")
    wait.set_defaults(handler=cmd_wait)

    logs = commands.add_parser("logs", help="the log of the container a user reads first, and the Cloud Logging "
                                            "query for the rest")
    logs.add_argument("workload", metavar="WORKLOAD")
    logs.add_argument("--role", help="head (default for a JobSet: the coordinator pod), worker, leader (default for "
                                     "a serving LeaderWorkerSet), proxy-<client> (a service-mode client's proxy)")
    logs.add_argument("--slice", type=int, help="with --role worker: the slice (JobSet) or the group (LWS); default 0")
    logs.add_argument("--container", help="another container of the chosen pod")
    logs.add_argument("-f", "--follow", action="store_true", help="stream the log")
    logs.add_argument("--tail", type=int, help="only the last N lines")
    add_cluster_arguments(logs)
    logs.set_defaults(handler=cmd_logs)

    from .preflight import register as register_preflight

    register_preflight(commands)
