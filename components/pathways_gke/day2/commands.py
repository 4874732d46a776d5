"""`pathways-gke status | wait | logs | suspend | resume` (and `preflight`, from preflight.py): the day-2 commands.

Exit codes (docs/day2.md): 0 ok / reached; 1 `wait` saw another terminal state, `logs` found no pod (yet or any
more), `suspend` / `resume` of a finished workload; 2 bad input (unknown or foreign workload, role or slice,
unusable kubeconfig, unreachable server, forbidden, an API still failing after retries); 4 `wait` (or `suspend
--wait`) timed out; 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

from .. import naming
from .state import (LWS, NOT_YET, REACHED, STATES, SUSPENDED, WAIT_TARGETS, WorkloadStatus, progress_line,
                    verdict, wait_problem)

EXIT_OK, EXIT_OTHER, EXIT_INVALID, EXIT_TIMEOUT = 0, 1, 2, 4
EXIT_INTERRUPTED = 130  # the shell's code for SIGINT
DEFAULT_INTERVAL = 5.0
FOREVER = 10 * 365 * 86400.0  # `wait` without --timeout retries transient API errors this long


def _guarded(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from .kube import Day2Error
        from .pods import RoleError
        from .stop import StopError

        try:
            return handler(args)
        except Day2Error as exc:
            print(f"error: {exc}", file=sys.stderr)
            return exc.code
        except (RoleError, StopError) as exc:
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


def connect(args: argparse.Namespace, deadline: Optional[float] = None) -> Any:
    """A cluster client; transient API errors are retried until `deadline` (time.monotonic())."""
    from .kube import connect as kube_connect

    stack = stack_config(args)
    return kube_connect(kubeconfig=args.kubeconfig, context=args.context, namespace=args.namespace,
                        stack=args.stack, project_dir=Path(args.project_dir),
                        default_namespace=stack.namespace if stack is not None else "default",
                        all_namespaces=bool(getattr(args, "all_namespaces", False)), deadline=deadline)


# --- status ------------------------------------------------------------------------------------------------------


def render_status(statuses: list[WorkloadStatus], all_namespaces: bool = False) -> str:
    if not statuses:
        return "no pathways-gke workloads\n"
    head = ("NAMESPACE",) if all_namespaces else ()
    rows = [head + ("NAME", "KIND", "STATE", "RESTARTS", "READY", "CONDITION")]
    for s in statuses:
        c = s.condition
        rows.append(((s.namespace,) if all_namespaces else ()) + (
            s.name, s.kind, s.state, s.restarts_text, s.summary, f"{c.type} {c.reason}".strip() if c else "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1] for row in rows]
    out = [line.rstrip() for line in lines]
    for s in statuses:
        out.append("")
        out.append(f"{s.namespace}/{s.name}:" if all_namespaces else f"{s.name}:")
        if s.blocker is not None:
            out.append(f"  blocked: {s.blocker.line()}")
        if s.queue is not None:
            out.append(f"  queue: position {s.queue.in_local_queue} in LocalQueue {s.queue.local_queue} "
                       f"({s.queue.in_cluster_queue} in its ClusterQueue)")
        if s.restarts is not None and s.all_restarts and s.all_restarts != s.restarts:
            out.append(f"  restarts: {s.restarts} of {s.max_restarts} allowed used ({s.all_restarts} in all; the "
                       "others did not count against maxRestarts)")
        if s.endpoint is not None:
            e = s.endpoint
            port = f":{e.port}" if e.port else ""
            where = f"{e.address}{port}" if e.address else ("address pending (the load balancer has none yet)"
                                                            if e.type == "LoadBalancer" else f"in-cluster only{port}")
            out.append(f"  endpoint: Service {e.service} ({e.type}) {where}")
        for g in s.groups:
            if s.kind == LWS:  # groups of replicas: no Job counts
                updated = f", {s.updated} updated" if s.updated is not None else ""
                out.append(f"  groups: {g.ready}/{g.replicas} ready, {g.active} created{updated}")
                continue
            out.append(f"  {g.name}: {g.ready}/{g.replicas} jobs ready, {g.active} active, {g.succeeded} succeeded, "
                       f"{g.failed} failed" + (f", {g.suspended} suspended" if g.suspended else ""))
        for a in s.admission:
            queue = f" on {a.cluster_queue}" if a.cluster_queue else ""
            out.append(f"  kueue {a.workload}: {a.state}{queue}" + (f" ({a.reason}: {a.message})" if a.message else ""))
            for check in a.checks:
                out.append(f"    admission check {check.name}: {check.state}"
                           + (f" ({check.message})" if check.message else ""))
        if s.condition and s.condition.message:
            out.append(f"  {s.condition.type}: {s.condition.message}")
    return "\n".join(out) + "\n"


@_guarded
def cmd_status(args: argparse.Namespace) -> int:
    cluster = connect(args)
    statuses = cluster.statuses(args.workloads)
    if args.state:
        wanted = {s.lower() for s in args.state}
        statuses = [s for s in statuses if s.state.lower() in wanted]
    if args.json:
        print(json.dumps({"namespace": None if cluster.all_namespaces else cluster.namespace,
                          "workloads": [s.as_json() for s in statuses]}, indent=2))
    else:
        print(render_status(statuses, cluster.all_namespaces), end="")
    return EXIT_OK


def state_name(text: str) -> str:
    """argparse type for --state: one of the states, any case."""
    match = next((s for s in STATES if s.lower() == text.strip().lower()), None)
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a state; allowed: {', '.join(STATES)}")
    return match


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
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    # a transient API error is retried within --timeout (without one, for as long as the wait would run)
    cluster = connect(args, deadline if deadline is not None else time.monotonic() + FOREVER)
    talk, last = _talkative(), ""
    while True:
        status = cluster.statuses([args.workload], details=False)[0]  # pods and events only once it ends
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
            status = cluster.statuses([args.workload])[0]  # with why it is stuck
            if args.json:
                print(json.dumps({"result": "timeout", "for": args.target, "workload": status.as_json()}, indent=2))
            else:
                blocked = f"; blocked: {status.blocker.line()}" if status.blocker else ""
                print(f"timed out waiting for {args.target}: {progress_line(status)}{blocked}")
            return EXIT_TIMEOUT
        pause = args.interval if deadline is None else max(0.0, min(args.interval, deadline - time.monotonic()))
        time.sleep(pause)


# --- logs --------------------------------------------------------------------------------------------------------


@_guarded
def cmd_logs(args: argparse.Namespace) -> int:
    from .blockers import current_attempt
    from .pods import (RoleError, choose_container, choose_pod, gke_context, logging_query, logs_explorer_url, pod_query,
                       pods_in_order)
    from .state import JOBSET

    cluster = connect(args)
    kind, obj = cluster.workloads([args.workload])[0]
    query = pod_query(obj, kind, args.role, args.slice, every_slice=args.all_pods and args.slice is None)
    pods = cluster.pods(query.selector)
    if kind == JOBSET:  # after a global restart, the old attempt's pods may still be terminating
        attempt = (obj.get("status") or {}).get("restarts")
        pods = current_attempt(pods, attempt if isinstance(attempt, int) else 0)
    stack = stack_config(args)
    # where the cluster is: the stack's config, else a GKE kubeconfig context's name
    place: dict[str, Optional[str]] = {"cluster": stack.cluster.name, "location": stack.cluster.location,
                                       "project": stack.project} if stack else dict(gke_context(cluster.context) or {})
    place = {k: place.get(k) for k in ("cluster", "location", "project")}
    where = logging_query(args.workload, cluster.namespace, **place)
    url = logs_explorer_url(where, place["project"], since=args.since)
    footer = (f"\nthe other containers of {args.workload} in Cloud Logging (Logs Explorer query):\n{where}\n"
              + (f"open: {url}\n" if url else ""))
    chosen = pods_in_order(pods, query) if args.all_pods else [p for p in [choose_pod(pods, query)] if p is not None]
    if not chosen and query.client is not None:  # an unknown client is bad input, not "retry later"
        clients = sorted({str((p.get("metadata", {}).get("labels") or {}).get(naming.CLIENT_LABEL))
                          for p in cluster.pods({naming.WORKLOAD_LABEL: args.workload})
                          if naming.CLIENT_LABEL in (p.get("metadata", {}).get("labels") or {})})
        if clients:
            raise RoleError(f"--role proxy-{query.client}: {args.workload} has no client {query.client!r}; roles: "
                            f"leader, worker, {', '.join('proxy-' + c for c in clients)}")
    if not chosen:
        status = cluster.statuses([args.workload], details=False)[0]
        if status.terminal or status.state == SUSPENDED:
            print(f"{args.workload} is {status.state} and the pods of {query.what} are gone; its logs stay in Cloud "
                  "Logging (below)", file=sys.stderr)
        else:
            print(f"no pod yet for {query.what} (the workload is {status.state}); retry later", file=sys.stderr)
        print(footer, file=sys.stderr, end="")
        return EXIT_OTHER
    out = sys.stdout.buffer
    if args.follow:
        print(footer, file=sys.stderr, end="", flush=True)
    streams = []
    for pod in chosen:
        container = choose_container(pod, args.container)
        name = str(pod["metadata"]["name"])
        prefix = f"[{name}/{container}] ".encode() if args.all_pods else b""
        header = f"==> {name} / {container} ({query.what})" + (" previous run" if args.previous else "")
        lines = cluster.log_lines(name, container, follow=args.follow, tail=args.tail, previous=args.previous,
                                  since=args.since, namespace=str(pod["metadata"].get("namespace") or cluster.namespace))
        streams.append((header, prefix, lines))
    if args.follow and len(streams) > 1:
        code = _interleave(streams, out)
    else:
        code = max(_copy(header, prefix, lines, out, single=len(streams) == 1) for header, prefix, lines in streams)
    if not args.follow:
        print(footer, file=sys.stderr, end="")
    return code


def _copy(header: str, prefix: bytes, chunks: Any, out: Any, lock: Any = None, single: bool = True) -> int:
    """Write one pod's log, each line behind `prefix` (none for one pod); its exit code. With several pods, one
    whose container has not started (or has no previous run) is reported and the others are still read."""
    from .kube import Day2Error

    print(header, file=sys.stderr, flush=True)
    pending = b""
    try:
        for chunk in chunks:
            if not prefix:
                out.write(chunk)
                out.flush()
                continue
            pending += chunk
            *complete, pending = pending.split(b"\n")
            if complete:
                text = b"".join(prefix + line + b"\n" for line in complete)
                if lock is not None:
                    with lock:
                        out.write(text)
                        out.flush()
                else:
                    out.write(text)
                    out.flush()
    except Day2Error as exc:
        if single or exc.code != EXIT_OTHER:
            raise
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return exc.code
    if pending:
        out.write(prefix + pending + b"\n")
        out.flush()
    return EXIT_OK


def _interleave(streams: list[tuple[str, bytes, Any]], out: Any) -> int:
    """`logs --all-pods -f`: one thread per pod, whole lines interleaved as they come; the worst exit code."""
    import threading

    from .kube import Day2Error

    lock = threading.Lock()
    codes: list[int] = []

    def follow(header: str, prefix: bytes, lines: Any) -> None:
        try:
            codes.append(_copy(header, prefix, lines, out, lock, single=False))
        except Day2Error as exc:  # no traceback from a thread: the message, and its code at the end
            print(f"error: {exc}", file=sys.stderr, flush=True)
            codes.append(exc.code)

    threads = [threading.Thread(target=follow, args=stream, daemon=True) for stream in streams]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.2)
    return max(codes, default=EXIT_OK)


# --- suspend / resume -------------------------------------------------------------------------------------------


def _stop_or_start(args: argparse.Namespace, suspend: bool) -> int:
    from .state import index_by_owner
    from .stop import change_for

    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    cluster = connect(args, deadline)
    kind, obj = cluster.workloads([args.workload])[0]
    status = cluster.statuses([args.workload], details=False)[0]
    verb = "suspend" if suspend else "resume"
    if status.terminal:
        print(f"{args.workload} is {status.state}: nothing to {verb} (a new run is a `pulumi up` that replaces it)",
              file=sys.stderr)
        return EXIT_OTHER
    meta = obj["metadata"]
    kueue = index_by_owner(cluster.kueue_workloads()).get((str(meta.get("namespace") or ""), kind, str(meta["name"])), [])
    change = change_for(kind, obj, kueue, suspend)
    if change is None:
        print(f"{args.workload} is already {'suspended' if suspend else 'resumed'} ({status.state})")
        return EXIT_OK
    cluster.patch(change.kind, change.name, change.body)
    print(f"{verb}ed {args.workload}: {change.what}")
    if suspend and change.later:
        print(f"note: {change.later}", file=sys.stderr)
    if not args.wait:
        return EXIT_OK
    while True:
        status = cluster.statuses([args.workload], details=False)[0]
        done = status.state == SUSPENDED if suspend else status.state != SUSPENDED
        if done:
            print(progress_line(status))
            return EXIT_OK
        if status.terminal:
            print(progress_line(status))
            return EXIT_OTHER
        if deadline is not None and time.monotonic() >= deadline:
            print(f"timed out waiting for {args.workload} to be {verb}d: {progress_line(status)}")
            return EXIT_TIMEOUT
        pause = args.interval if deadline is None else max(0.0, min(args.interval, deadline - time.monotonic()))
        time.sleep(pause)


@_guarded
def cmd_suspend(args: argparse.Namespace) -> int:
    return _stop_or_start(args, suspend=True)


@_guarded
def cmd_resume(args: argparse.Namespace) -> int:
    return _stop_or_start(args, suspend=False)


def register(commands: argparse._SubParsersAction) -> None:
    status = commands.add_parser("status", help="state, restarts and readiness of the deployed workloads",
                                 description="Every pathways-gke workload (JobSets and LeaderWorkerSets labelled "
                                             "pathways-gke/workload) with its state, restarts, per replicated job "
                                             "or group counts, Kueue admission and queue position, latest "
                                             "condition, why one that is not Running is stuck, and a serving "
                                             "Service's address.")
    status.add_argument("workloads", nargs="*", metavar="WORKLOAD", help="only these workloads (default: all)")
    add_cluster_arguments(status)
    status.add_argument("--all-namespaces", "-A", action="store_true", help="every namespace's workloads")
    status.add_argument("--state", type=state_name, action="append", metavar="STATE",
                        help=f"only workloads in this state (repeatable): {', '.join(STATES)}")
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
    logs.add_argument("--previous", "-p", action="store_true",
                      help="the previous run of the container (a worker restarted OnFailure: its traceback)")
    logs.add_argument("--since", type=duration, help="only lines newer than this (90s, 15m, 1h30m)")
    logs.add_argument("--all-pods", action="store_true",
                      help="every pod of the role (of --slice N, or of every slice), each line behind [pod/container]")
    add_cluster_arguments(logs)
    logs.set_defaults(handler=cmd_logs)

    for verb, handler, text in (("suspend", cmd_suspend, "stop a run without editing the stack"),
                                ("resume", cmd_resume, "start a suspended run again")):
        p = commands.add_parser(verb, help=text, description=(
            f"{text[0].upper() + text[1:]}: a JobSet's spec.suspend, the Kueue Workload's spec.active of a "
            "Kueue-managed JobSet, a LeaderWorkerSet's replicas (0, the count kept in an annotation). Exit 0 done "
            "(or already so), 1 the workload has finished, 2 bad input, 4 --wait timed out. What a later "
            "`pulumi up` does with it: docs/day2.md."))
        p.add_argument("workload", metavar="WORKLOAD")
        p.add_argument("--wait", action="store_true", help="poll until the workload shows the change")
        p.add_argument("--timeout", type=duration, help="with --wait: give up after this long")
        p.add_argument("--interval", type=duration, default=DEFAULT_INTERVAL, help="with --wait: seconds between polls")
        add_cluster_arguments(p)
        p.set_defaults(handler=handler)

    from .preflight import register as register_preflight

    register_preflight(commands)
