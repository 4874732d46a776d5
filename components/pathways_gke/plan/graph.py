"""The resource graph of a plan as Mermaid or Graphviz DOT.

Components (and any resource that has children) are nested boxes — Mermaid subgraphs, DOT
clusters — holding their children; plain arrows run from a dependency to the resource that
depends on it (creation order); dotted arrows from a provider to the resources it manages.
Given a diff, resources are marked added / removed / changed / replaced (`classDef` in Mermaid,
fill colours in DOT) and removed resources are drawn as ghosts from the old plan.

Node ids are derived from the URN (`r_<name>_<hash>`: letters, digits and `_` only, never a
Mermaid keyword), so they are stable and collision-free. Labels are entity-escaped. Output is
deterministic. Pure: no Pulumi import.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from ..property_paths import value_at
from ..tokens import PROVIDER_PREFIX

STATUSES = ("added", "removed", "changed", "replaced")

# Mermaid classDef per status (GitHub renders these); DOT fill/border per status.
MERMAID_CLASSES: Mapping[str, str] = {
    "added": "fill:#e6ffed,stroke:#22863a,color:#0b4f1c",
    "removed": "fill:#ffeef0,stroke:#cb2431,color:#86181d,stroke-dasharray:5 5",
    "changed": "fill:#fff5b1,stroke:#b08800,color:#4d3800",
    "replaced": "fill:#ffdce0,stroke:#cb2431,color:#86181d,stroke-width:3px",
}
DOT_STYLES: Mapping[str, tuple[str, str]] = {
    "added": ("#e6ffed", "#22863a"),
    "removed": ("#ffeef0", "#cb2431"),
    "changed": ("#fff5b1", "#b08800"),
    "replaced": ("#ffdce0", "#cb2431"),
}


@dataclass
class Node:
    urn: str
    id: str
    name: str
    type: str
    parent: Optional[str]
    status: Optional[str] = None
    children: list[str] = field(default_factory=list)

    @property
    def label_type(self) -> str:
        return short_type(self.type)


@dataclass
class Graph:
    nodes: dict[str, Node]                      # urn -> node, in deterministic order
    edges: list[tuple[str, str]]                # (dependency urn, dependent urn)
    provider_edges: list[tuple[str, str]]       # (provider urn, managed resource urn)

    def roots(self) -> list[Node]:
        return [n for n in self.nodes.values() if n.parent is None]


def short_type(type_: str) -> str:
    """`gcp:container/nodePool:NodePool` -> `NodePool`; `pulumi:providers:kubernetes` -> `provider:kubernetes`."""
    if type_.startswith(PROVIDER_PREFIX):
        return "provider:" + type_.rsplit(":", 1)[1]
    return type_.rsplit(":", 1)[-1]


def node_id(urn: str, name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")[:40] or "r"
    return f"r_{stem}_{hashlib.sha1(urn.encode()).hexdigest()[:8]}"


def build_graph(resources: list[Mapping[str, Any]], status: Optional[Mapping[str, str]] = None) -> Graph:
    """A graph of plan resources (plan.json dicts); `status` maps URN -> one of STATUSES."""
    status = status or {}
    ordered = sorted(resources, key=lambda r: r["urn"])
    nodes = {r["urn"]: Node(urn=r["urn"], id=node_id(r["urn"], r["name"]), name=r["name"], type=r["type"],
                            parent=r.get("parent"), status=status.get(r["urn"])) for r in ordered}
    for node in nodes.values():
        if node.parent not in nodes:
            node.parent = None
        else:
            nodes[node.parent].children.append(node.urn)
    edges: set[tuple[str, str]] = set()
    provider_edges: set[tuple[str, str]] = set()
    for r in ordered:
        for dep in r.get("dependsOn") or ():
            if dep in nodes and dep != r["urn"]:
                edges.add((dep, r["urn"]))
        provider = value_at(r, "options.provider")
        if isinstance(provider, str) and provider in nodes:
            provider_edges.add((provider, r["urn"]))
    return Graph(nodes=nodes, edges=sorted(edges), provider_edges=sorted(provider_edges - edges))


def plan_graph(plan: Mapping[str, Any]) -> Graph:
    return build_graph(list(plan["resources"]))


def diff_graph(diff: Any) -> Graph:
    """The new plan's graph plus the removed resources (ghosts), marked by the diff's status."""
    resources = list(diff.new_resources.values()) + list(diff.removed)
    return build_graph(resources, diff.status())


# --- Mermaid ----------------------------------------------------------------------------------


def mermaid_text(text: str) -> str:
    """Entity-escape text for a quoted Mermaid label (`#` first: it starts Mermaid entity codes)."""
    out = text.replace("#", "#35;")
    for char, code in (('"', "#quot;"), ("<", "#lt;"), (">", "#gt;"), ("`", "#96;"), ("|", "#124;")):
        out = out.replace(char, code)
    return out


def mermaid_label(node: Node) -> str:
    return f"{mermaid_text(node.name)}<br/>{mermaid_text(node.label_type)}"


def to_mermaid(graph: Graph, direction: str = "LR") -> str:
    if direction not in ("LR", "RL", "TB", "TD", "BT"):
        raise ValueError(f"direction {direction!r}: allowed LR, RL, TB, TD, BT")
    lines = [f"flowchart {direction}"]

    def emit(node: Node, indent: str) -> None:
        if node.children:
            lines.append(f'{indent}subgraph {node.id}["{mermaid_label(node)}"]')
            for child in node.children:
                emit(graph.nodes[child], indent + "  ")
            lines.append(f"{indent}end")
        else:
            lines.append(f'{indent}{node.id}["{mermaid_label(node)}"]')

    for root in graph.roots():
        emit(root, "  ")
    ids = {urn: n.id for urn, n in graph.nodes.items()}
    lines += [f"  {ids[a]} --> {ids[b]}" for a, b in graph.edges]
    lines += [f"  {ids[a]} -.-> {ids[b]}" for a, b in graph.provider_edges]
    used = sorted({n.status for n in graph.nodes.values() if n.status})
    for status in used:
        lines.append(f"  classDef {status} {MERMAID_CLASSES[status]}")
    for status in used:
        members = [n.id for n in graph.nodes.values() if n.status == status]
        lines.append(f"  class {','.join(members)} {status}")
    return "\n".join(lines) + "\n"


# --- DOT --------------------------------------------------------------------------------------


def dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph: Graph, name: str = "plan") -> str:
    lines = [f"digraph {dot_quote(name)} {{", "  rankdir=LR;", "  compound=true;",
             '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica"];']

    def attrs(node: Node) -> str:
        label = dot_quote(f"{node.name}\n{node.label_type}")
        if node.status:
            fill, border = DOT_STYLES[node.status]
            style = '"rounded,filled,dashed"' if node.status == "removed" else '"rounded,filled"'
            width = ", penwidth=3" if node.status == "replaced" else ""
            return (f"label={label}, fillcolor={dot_quote(fill)}, color={dot_quote(border)}, "
                    f"style={style}{width}, tooltip={dot_quote(node.status)}")
        return f"label={label}"

    def emit(node: Node, indent: str) -> None:
        if node.children:
            lines.append(f"{indent}subgraph {dot_quote('cluster_' + node.id)} {{")
            lines.append(f"{indent}  label={dot_quote(node.name + ' (' + node.label_type + ')')};")
            if node.status:
                fill, border = DOT_STYLES[node.status]
                lines.append(f"{indent}  style=filled; fillcolor={dot_quote(fill)}; color={dot_quote(border)};")
            # the component itself, so edges to/from it have an anchor inside its box
            lines.append(f'{indent}  {dot_quote(node.id)} [{attrs(node)}, shape=component];')
            for child in node.children:
                emit(graph.nodes[child], indent + "  ")
            lines.append(f"{indent}}}")
        else:
            lines.append(f"{indent}{dot_quote(node.id)} [{attrs(node)}];")

    for root in graph.roots():
        emit(root, "  ")
    ids = {urn: n.id for urn, n in graph.nodes.items()}
    lines += [f"  {dot_quote(ids[a])} -> {dot_quote(ids[b])};" for a, b in graph.edges]
    lines += [f"  {dot_quote(ids[a])} -> {dot_quote(ids[b])} [style=dashed];" for a, b in graph.provider_edges]
    lines.append("}")
    return "\n".join(lines) + "\n"
