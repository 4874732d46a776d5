"""`pathways-gke`: offline plans and diffs without credentials; day-2 commands against a live cluster and GCP.

Exit codes: 0 ok, 1 runtime failure (or `diff --exit-code` found changes), 2 invalid config or usage,
3 a guardrail refused (a mandatory policy violation in `plan`; see plan/commands.py), 4 `wait` timed out.
The day-2 commands (status, wait, logs, preflight) talk to a cluster and Google's APIs: day2/ and docs/day2.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Callable, Optional, Sequence

from .errors import ConfigError, RedactingFilter, RedactingStream
from .plan import commands as plan_commands
from .plan.commands import add_critical_path_arguments, add_policy_arguments

EXIT_INVALID = 2
HELP_EPILOG = """offline, no credentials (the stack file only):
  plan, diff, graph              what `pulumi up` would create or change, and its predicted outcome
with credentials (a kubeconfig or --stack, and Google Application Default Credentials for preflight):
  preflight                      what GCP would refuse before `pulumi up` (APIs, quota, versions, permissions)
  status, wait, logs             the deployed workloads: state, why one is stuck, its logs
  suspend, resume                stop a run and start it again without editing the stack
docs: docs/day2.md (day 2), README.md (plan and diff)"""


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--stack", help="stack name: plans stacks/Pulumi.<stack>.yaml of the project")
    source.add_argument("--config", type=Path, help="a stack config file (Pulumi.<stack>.yaml format)")
    parser.add_argument("--project-dir", type=Path, default=Path("."),
                        help="Pulumi project directory (default: the current directory)")
    add_esc_argument(parser)


def add_esc_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--esc-env", type=Path, metavar="JSON",
                        help="the stack's ESC environment exported with `esc env open ORG/PROJECT/ENV` (a stack file "
                             "with `environment:` is refused without it); its pulumiConfig is merged as `pulumi up` "
                             "merges it")


def load_plan(args: argparse.Namespace):
    from .plan.engine import plan_file, plan_stack

    if args.stack:
        return plan_stack(args.stack, args.project_dir, esc=args.esc_env)
    return plan_file(args.config, args.project_dir, esc=args.esc_env)


def cmd_plan(args: argparse.Namespace) -> int:
    from .plan.commands import policy_step, prepare_critical_path, print_critical_path
    from .plan.render import render_tree, write_out

    invalid = prepare_critical_path(args)
    if invalid:
        return invalid
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        print(f"error: --out {args.out}: is an existing file; give a directory (created if missing)",
              file=sys.stderr)
        return EXIT_INVALID
    plan = load_plan(args)
    if args.out:
        written = write_out(plan, args.out)
        if not args.json:
            print(f"wrote {len(written)} files to {args.out}", file=sys.stderr)
    if args.critical_path:
        invalid = print_critical_path(args, plan)
        if invalid:
            return invalid
    elif args.cost:
        from .cost.estimate import estimate, render_cost_text

        cost = estimate(plan.to_json())
        if args.json:  # the plan.json contract plus a top-level `cost`
            print(json.dumps({**plan.to_json(), "cost": cost.to_json()}, indent=2, sort_keys=True))
        else:
            print(render_tree(plan) + "\n" + render_cost_text(cost), end="")
    else:
        print(plan.dumps() if args.json else render_tree(plan), end="")
    sys.stdout.flush()
    return policy_step(args, plan)


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The whole CLI; given the `command` being run, only what it needs (the plan never imports the day-2 code)."""
    parser = argparse.ArgumentParser(prog="pathways-gke", description=__doc__.split("\n")[0], epilog=HELP_EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    plan = commands.add_parser("plan", help="offline plan of a stack: the resource tree, or JSON / files")
    add_source_arguments(plan)
    plan.add_argument("--json", action="store_true", help="print the plan as JSON (the plan.json contract)")
    plan.add_argument("--out", type=Path, help="also write plan.json and every Kubernetes object as YAML here")
    plan.add_argument("--cost", action="store_true",
                      help="add the hourly cost: per node pool and the cluster fee, from the dated price table shipped "
                           "with the package (with --json: a top-level `cost`; docs/capacity-and-cost.md)")
    add_policy_arguments(plan)
    add_critical_path_arguments(plan)
    plan.set_defaults(handler=cmd_plan)
    for register in EXTRA_COMMANDS:
        if command is None or command not in OFFLINE_COMMANDS or register in OFFLINE_REGISTRARS:
            register(commands)
    return parser


def _register_day2(commands: argparse._SubParsersAction) -> None:
    from .day2 import commands as day2_commands

    day2_commands.register(commands)


# other modules add their subcommands here: each takes the subparsers object and sets `handler`
EXTRA_COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    plan_commands.register_diff, plan_commands.register_graph, _register_day2,
]
OFFLINE_COMMANDS = ("plan", "diff", "graph")
OFFLINE_REGISTRARS = (plan_commands.register_diff, plan_commands.register_graph)


# The SDKs' generated modules and a plan's registrations allocate hundreds of thousands of long-lived objects:
# with the default thresholds the cyclic collector runs over them again and again (about a fifth of a plan's CPU
# here). A short command collects rarely instead; the thresholds are restored on the way out.
GC_THRESHOLDS = (100_000, 50, 1_000)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Every byte the CLI prints (results, JSON, errors, argparse's usage errors, log lines) goes through
    `errors.without_credentials`: a password in a kubeconfig or proxy URL is never shown. The cyclic collector runs
    rarely while the command runs (GC_THRESHOLDS)."""
    import gc

    thresholds = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(out), RedactingStream(err)
    handlers, redacting = list(logging.getLogger().handlers), RedactingFilter()
    for handler in handlers:
        handler.addFilter(redacting)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err
        for handler in handlers:
            handler.removeFilter(redacting)
        gc.set_threshold(*thresholds)


def _main(argv: Optional[Sequence[str]]) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
    try:
        return args.handler(args)
    except ConfigError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_INVALID
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except OSError as exc:  # e.g. --out on a read-only disk: a clean message, no traceback
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INVALID
    finally:
        from .plan.engine import close_event_loop

        close_event_loop()


def run() -> None:
    """The `pathways-gke` command. An offline command ends the process as soon as its output is flushed: tearing
    down the interpreter (the SDKs' modules, the engine's objects, about 200,000 of them) cost a third of a plan's
    CPU here and does nothing an offline command needs (it holds no file, lock or connection)."""
    code = main()
    words = sys.argv[1:2]
    if words and words[0] in OFFLINE_COMMANDS:
        import os

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    run()
