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

from .day2 import commands as day2_commands
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


def build_parser() -> argparse.ArgumentParser:
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
        register(commands)
    return parser


# other modules add their subcommands here: each takes the subparsers object and sets `handler`
EXTRA_COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    plan_commands.register_diff, plan_commands.register_graph, day2_commands.register,
]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Every byte the CLI prints (results, JSON, errors, argparse's usage errors, log lines) goes through
    `errors.without_credentials`: a password in a kubeconfig or proxy URL is never shown."""
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


def _main(argv: Optional[Sequence[str]]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
