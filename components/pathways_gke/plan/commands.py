"""CLI subcommands `diff` and `graph`, and the policy and critical-path steps of `plan` (wired in cli.py).

Exit codes (cli.py's plus two): 0 ok; 1 `diff --exit-code` found changes; 2 invalid config, plan
file or usage; 3 a guardrail refused: `plan` found a MANDATORY policy violation, or
`diff --fail-on-node-pool-disruption` found a node pool that is replaced (cascades included), deleted or
rolled; 4 `diff` found a change the real `pulumi up` refuses (GKE, a webhook, or protect / retainOnDelete);
5 `diff` found a change only pathways-gke's own policy refuses (e.g. a controller downgrade: the real
`pulumi up` would apply it, the product judges it unsafe), and nothing the world refuses.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

EXIT_CHANGES = 1
EXIT_INVALID = 2
EXIT_GUARDRAIL = 3
EXIT_REFUSED = 4
EXIT_POLICY = 5


# --- diff -------------------------------------------------------------------------------------


def register_diff(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "diff", help="diff two offline plans: what the real `pulumi up` does with every resource",
        description="OLD and NEW are each a plan.json (from `plan --json`), a stack config file "
                    "(Pulumi.<stack>.yaml) or a stack name (stacks/Pulumi.<name>.yaml). Each changed resource "
                    "gets a verdict: update in place, replace (create-first or delete-first, with what it "
                    "cascades to), relinquish (a created resource that becomes a read) or refused (by GKE, a "
                    f"provider, a webhook or the engine: exit {EXIT_REFUSED}; only by "
                    f"pathways-gke's own policy, e.g. a controller downgrade: exit {EXIT_POLICY}).")
    p.add_argument("old", help="plan.json, stack config file, or stack name")
    p.add_argument("new", help="plan.json, stack config file, or stack name")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true",
                     help='print {"added":[urn], "removed":[urn], "changed":[{"urn","replace","properties"}]}')
    out.add_argument("--markdown", action="store_true", help="print a pull-request comment (with a Mermaid graph)")
    p.add_argument("--title", help="heading of the --markdown comment (default: the stack names)")
    p.add_argument("--no-graph", action="store_true", help="leave the Mermaid graph out of --markdown")
    p.add_argument("--project-dir", type=Path, default=Path("."), help="Pulumi project directory (default: .)")
    p.add_argument("--exit-code", action="store_true", help=f"exit {EXIT_CHANGES} when anything changes")
    p.add_argument("--fail-on-node-pool-disruption", action="store_true",
                   help=f"exit {EXIT_GUARDRAIL} when a node pool is replaced (also as a cascade), deleted or has every "
                        "node re-created")
    p.set_defaults(handler=cmd_diff)


def cmd_diff(args: argparse.Namespace) -> int:
    from .diff import diff_plans, load_source_plan, node_pool_warnings, render_text
    from .markdown import render_markdown

    try:
        old = load_source_plan(args.old, args.project_dir)
        new = load_source_plan(args.new, args.project_dir)
        diff = diff_plans(old, new)
    except (ValueError, KeyError, TypeError) as exc:  # a file that is not a plan
        if type(exc).__name__ == "ConfigError":
            raise
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    from ..cost.estimate import cost_change, render_change_markdown, render_change_text

    cost = cost_change(old, new)  # the hourly change (cost/estimate.py), in every format
    if args.json:
        sys.stdout.write(json.dumps({**diff.to_json(), "cost": cost}, indent=2, sort_keys=True) + "\n")
    elif args.markdown:
        sys.stdout.write(render_markdown(diff, title=args.title, graph=not args.no_graph) + "\n"
                         + render_change_markdown(cost))
    else:
        sys.stdout.write(render_text(diff) + render_change_text(cost))
    if diff.world_refused:  # the real `pulumi up` fails: always a failure, whatever the flags
        return EXIT_REFUSED
    if diff.policy_refused:  # pathways-gke's own policy: the real `pulumi up` would apply it
        return EXIT_POLICY
    if args.fail_on_node_pool_disruption and node_pool_warnings(diff):
        return EXIT_GUARDRAIL
    if args.exit_code and not diff.empty:
        return EXIT_CHANGES
    return 0


# --- graph ------------------------------------------------------------------------------------


def register_graph(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("graph", help="the resource graph (parents and dependencies) as Mermaid or DOT")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--stack", help="stack name: stacks/Pulumi.<stack>.yaml")
    source.add_argument("--config", help="a stack config file (Pulumi.<stack>.yaml format)")
    source.add_argument("--plan", help="a plan.json written by `plan --json`")
    p.add_argument("--format", choices=("mermaid", "dot"), default="mermaid")
    p.add_argument("--direction", choices=("LR", "TB"), default="LR", help="Mermaid layout direction")
    p.add_argument("--project-dir", type=Path, default=Path("."), help="Pulumi project directory (default: .)")
    p.set_defaults(handler=cmd_graph)


def cmd_graph(args: argparse.Namespace) -> int:
    from .diff import load_source_plan
    from .graph import plan_graph, to_dot, to_mermaid

    source = args.plan or args.config or args.stack
    try:
        plan = load_source_plan(source, args.project_dir)
        graph = plan_graph(plan)
    except (ValueError, KeyError, TypeError) as exc:
        if type(exc).__name__ == "ConfigError":
            raise
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if args.format == "dot":
        sys.stdout.write(to_dot(graph, name=str(plan.get("stack") or "plan")))
    else:
        sys.stdout.write(to_mermaid(graph, direction=args.direction))
    return 0


# --- policy step of `plan` --------------------------------------------------------------------


def add_policy_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--policy-config", type=Path,
                        help="policy config JSON (the format of `pulumi preview --policy-pack-config`)")
    parser.add_argument("--skip-policy", action="store_true", help="do not run the policy rules")


def policy_step(args: argparse.Namespace, plan: Any) -> int:
    """Run the guardrails on a plan; violations go to stderr. Returns EXIT_GUARDRAIL on a mandatory one."""
    from .. import policies

    if getattr(args, "skip_policy", False):
        return 0
    overrides: dict[str, Any] = {}
    if getattr(args, "policy_config", None):
        try:
            overrides = json.loads(Path(args.policy_config).read_text())
        except ValueError as exc:
            print(f"error: {args.policy_config}: not JSON: {exc}", file=sys.stderr)
            return EXIT_INVALID
        unknown = policies.check_config_keys(overrides)
        if not isinstance(overrides, dict) or unknown:
            print(f"error: {args.policy_config}: unknown policies {unknown}; allowed: "
                  f"{', '.join(policies.RULES_BY_NAME)}", file=sys.stderr)
            return EXIT_INVALID
    plan_json = plan.to_json() if hasattr(plan, "to_json") else plan
    config = policies.offline_config(plan_json.get("stack", ""), _privileged_workloads(args), overrides)
    try:
        violations = policies.check_plan(plan_json, config)
    except ValueError as exc:  # a bad enforcement level in the policy config
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if violations:
        sys.stderr.write(policies.render_violations(violations))
    return EXIT_GUARDRAIL if any(v.level == policies.MANDATORY for v in violations) else 0


def _privileged_workloads(args: argparse.Namespace) -> list[str]:
    """Workloads the stack marks `privileged: true`: the stack allows exactly those."""
    from ..config.stack import PROJECT, load_stack_file
    from .engine import project_name, stack_file

    project_dir = Path(getattr(args, "project_dir", None) or ".")
    if project_name(project_dir) != PROJECT:
        # a consumer project: its stack file is its program's config, not ours (its components checked their args)
        return []
    path = getattr(args, "config", None)
    if path is None and getattr(args, "stack", None):
        path = stack_file(project_dir, args.stack)
    if path is None:
        return []
    return [w.name for w in load_stack_file(path, project_dir=project_dir, esc=getattr(args, "esc_env", None)).workloads
            if w.privileged]


# --- critical path of `plan` ------------------------------------------------------------------


def add_critical_path_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--critical-path", action="store_true",
                        help="instead of the plan: the expected `pulumi up` time and the chain that decides it "
                             '(with --json: {"stack", "totalSeconds", "chain":[…], …})')
    parser.add_argument("--durations", type=Path,
                        help="with --critical-path: JSON/YAML {resource type or type#variant: seconds} overriding "
                             "the estimates (docs/critical-path.md)")


def prepare_critical_path(args: argparse.Namespace) -> int:
    """Read and check --durations before the program runs (a bad file must not cost a plan); 0 or EXIT_INVALID.

    Sets `args.duration_overrides` for `print_critical_path`.
    """
    from .critical_path import DurationsError, load_durations

    args.duration_overrides = None
    if getattr(args, "durations", None) is None:
        return 0
    if not args.critical_path:
        print("error: --durations needs --critical-path", file=sys.stderr)
        return EXIT_INVALID
    try:
        args.duration_overrides = load_durations(args.durations)
    except DurationsError as exc:
        print("\n".join(f"error: {line}" for line in str(exc).splitlines()), file=sys.stderr)
        return EXIT_INVALID
    return 0


def print_critical_path(args: argparse.Namespace, plan: Any) -> int:
    """Print the plan's critical path (text, or JSON with --json) instead of the plan; 0 or EXIT_INVALID."""
    from .critical_path import PlanGraphError, critical_path, render_text

    try:
        schedule = critical_path(plan.to_json() if hasattr(plan, "to_json") else plan, args.duration_overrides)
    except PlanGraphError as exc:  # a cycle or a dangling dependency: no schedule exists
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    sys.stdout.write(json.dumps(schedule.to_json(), indent=2) + "\n" if args.json else render_text(schedule))
    return 0
