"""A plan diff as a GitHub pull-request comment (GitHub-flavoured Markdown + a Mermaid graph).

Node-pool replacements (and deletions, and in-place changes that re-create every node) come
first, in a CAUTION alert: on a TPU slice they kill the running job. Then one table row per
touched resource, then the resource graph with the touched resources marked. Pure: no Pulumi import.
"""

from __future__ import annotations

from .diff import (RELINQUISH, PlanDiff, forces, node_pool_warnings, refusal_lines, rename_warnings, summary,
                   trap_warnings, verdict_text)
from .graph import diff_graph, short_type, to_mermaid

MAX_PATHS_PER_RESOURCE = 15
MAX_GRAPH_NODES = 300  # GitHub refuses very large Mermaid diagrams; past this the graph is left out
NOTE = ("Offline plan diff (`pathways-gke diff`): computed from the stack files without cloud credentials. "
        "It cannot see provider defaults or drift; a credentialed `pulumi preview --diff` is authoritative.")


def code(text: str) -> str:
    """Inline code that survives backticks and table pipes."""
    text = str(text).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markdown(diff: PlanDiff, title: str | None = None, graph: bool = True) -> str:
    stack = diff.new_stack or diff.old_stack or "stack"
    heading = title or (f"`{diff.old_stack}` → `{diff.new_stack}`" if diff.old_stack != diff.new_stack
                        else f"`{stack}`")
    lines = [f"### pathways-gke plan diff: {heading}", "", f"**{summary(diff)}**", ""]
    if diff.empty:
        lines += ["No resource is added, removed or changed.", "", f"<sub>{NOTE}</sub>", ""]
        return "\n".join(lines)

    lines += _alert("CAUTION", ["**The real `pulumi up` refuses these.** GKE, a webhook or the Pulumi engine fails the",
                                "update; each line names the rule, its source and the way out."],
                    refusal_lines(diff))
    lines += _alert("WARNING", ["**Refused by pathways-gke policy.** The real `pulumi up` would apply these; this",
                                "product refuses them as unsafe (each line says why and the way out)."],
                    refusal_lines(diff, policy=True))
    lines += _alert("CAUTION", ["**Node pools lose their nodes in this change.** A TPU slice that is replaced,",
                                "deleted or rolled ends every job running on it (JobSets on it restart or fail)."],
                    node_pool_warnings(diff))
    lines += _alert("CAUTION", ["**Replacements that fail or repeat on the real `pulumi up`.** A fixed name replaced",
                                "create-before-delete gets 409; a field GKE fills in replaces the slice on every update."],
                    trap_warnings(diff))
    lines += _alert("WARNING", ["**Renamed without an alias.** Resource names are public API: these are deleted and",
                                "created again unless the new resource carries an alias to its old name."],
                    rename_warnings(diff))

    lines += ["| Action | Resource | Type | What changes |", "|---|---|---|---|"]
    for r in diff.added:
        lines.append(f"| **add** | {code(r['name'])} | {code(short_type(r['type']))} | |")
    for c in diff.changed:
        action = ("**REFUSED**" if any(not r.world_rule.is_policy for r in c.refusals) else
                  "**REFUSED by policy**" if c.refusals else "**REPLACE**" if c.replace
                  else "relinquish" if c.verdict == RELINQUISH else "update")
        what = []
        for path in c.properties[:MAX_PATHS_PER_RESOURCE]:
            secret = " changed (secret)" if path in c.secret_changed else ""
            if forces(c, path):
                what.append(f"{code(path)}{secret} (forces replacement)")
            elif secret:
                what.append(f"{code(path)}{secret}")
            elif path in c.nodes_recreated:
                what.append(f"{code(path)} (re-creates every node)")
            else:
                what.append(code(path))
        if len(c.properties) > MAX_PATHS_PER_RESOURCE:
            what.append(f"… and {len(c.properties) - MAX_PATHS_PER_RESOURCE} more")
        what += [code(f"options.{o}") for o in c.options]
        what += [f"replaced with {code(u.rpartition('::')[2])}" for u in c.replaced_with]
        if c.provider_replaced:
            what.append(f"its provider {code(c.provider_replaced.rpartition('::')[2])} is replaced")
        if c.renamed_from:
            what.append(f"renamed from {code(c.renamed_from.rpartition('::')[2])} (alias)")
        if c.replace and c.delete_before_replace:
            what.append("deleted before the new one is created")
        what += [f"replaced because {code(u.rpartition('::')[2])} is replaced delete-first" for u in c.replaced_by]
        if c.cascade:
            what.append("cascades to " + ", ".join(code(u.rpartition('::')[2]) for u in c.cascade))
        what += [f"note: {note}" for note in c.release_notes]
        if c.replace or c.refusals or c.read:
            what.append(f"_{verdict_text(c)}_")
        lines.append(f"| {action} | {code(c.name)} | {code(short_type(c.type))} | {'<br>'.join(what)} |")
    for r in diff.removed:
        action = "**REFUSED** delete" if diff.delete_refusals.get(r["urn"]) else "**delete**"
        lines.append(f"| {action} | {code(r['name'])} | {code(short_type(r['type']))} | |")
    lines.append("")

    if graph:
        g = diff_graph(diff)
        if len(g.nodes) <= MAX_GRAPH_NODES:
            lines += ["<details><summary>Resource graph (green added, yellow changed, red replaced, "
                      "dashed red deleted)</summary>", "", "```mermaid", to_mermaid(g).rstrip("\n"), "```", "",
                      "</details>", ""]
        else:
            lines += [f"_Resource graph left out: {len(g.nodes)} resources (run `pathways-gke graph`)._", ""]
    lines += [f"<sub>{NOTE}</sub>", ""]
    return "\n".join(lines)


def _alert(kind: str, heading: list[str], items: list[str]) -> list[str]:
    """A GitHub alert block listing `items`; nothing when there are none."""
    if not items:
        return []
    return [f"> [!{kind}]", *(f"> {line}" for line in heading), ">", *(f"> - {item}" for item in items), ""]


def extract_mermaid_blocks(markdown: str) -> list[str]:
    """The bodies of the ```mermaid fences of a Markdown text (used by tests and CI checks)."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in markdown.splitlines():
        if current is None and line.strip() == "```mermaid":
            current = []
        elif current is not None and line.strip() == "```":
            blocks.append("\n".join(current) + "\n")
            current = None
        elif current is not None:
            current.append(line)
    if current is not None:
        raise ValueError("unterminated ```mermaid block")
    return blocks
