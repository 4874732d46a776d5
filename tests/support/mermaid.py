"""Checking the Mermaid we emit: a strict grammar check of our subset, and the real parser when present.

`grammar_errors(text)` accepts only the flowchart subset graph.py writes and checks it the way
Mermaid's flowchart grammar does for it: a `flowchart <dir>` header; `subgraph ID["label"]` / `end`
balanced; nodes `ID["label"]`; edges `ID --> ID` and `ID -.-> ID`; `classDef NAME style` and
`class ID,ID NAME`. Ids are [A-Za-z][A-Za-z0-9_]* and never a Mermaid keyword; labels contain no
raw `"`, `` ` `` or `|` and only the `<br/>` tag; every id an edge or class names is declared once;
every class used has a classDef.

`mermaid_parse(text)` runs mermaid's own parser (npm `mermaid` + `jsdom`, pinned in
tests/mermaid/package.json; `npm ci --prefix tests/mermaid`) under node, and skips the test with a
reason when node or those modules are absent.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ID = r"[A-Za-z][A-Za-z0-9_]*"
KEYWORDS = {"end", "subgraph", "graph", "flowchart", "style", "class", "classDef", "click", "default",
            "linkStyle", "interpolate", "direction", "call", "href"}
LABEL = r'"((?:[^"`|<>]|<br/>)*)"'
HEADER = re.compile(r"^flowchart (LR|RL|TB|TD|BT)$")
SUBGRAPH = re.compile(rf"^subgraph ({ID})\[{LABEL}\]$")
NODE = re.compile(rf"^({ID})\[{LABEL}\]$")
EDGE = re.compile(rf"^({ID}) (-->|-\.->) ({ID})$")
CLASSDEF = re.compile(rf"^classDef ({ID}) ([a-z-]+:[^,;\s]+(?: [^,;\s]+)*(?:,[a-z-]+:[^,;\s]+(?: [^,;\s]+)*)*)$")
CLASS = re.compile(rf"^class ({ID}(?:,{ID})*) ({ID})$")
ENTITY = re.compile(r"#[a-z0-9]+;")

MERMAID_DIR = Path(__file__).resolve().parents[1] / "mermaid"


def grammar_errors(text: str) -> list[str]:
    errors: list[str] = []
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("%%")]
    if not lines or not HEADER.match(lines[0]):
        return [f"first line must be 'flowchart <direction>', got {lines[0] if lines else '(empty)'!r}"]
    declared: dict[str, int] = {}
    depth = 0
    edges: list[tuple[int, str, str]] = []
    class_uses: list[tuple[int, list[str], str]] = []
    class_defs: set[str] = set()

    def declare(node_id: str, n: int, label: str) -> None:
        if node_id in KEYWORDS or node_id.lower() in KEYWORDS:
            errors.append(f"line {n}: id {node_id!r} is a Mermaid keyword")
        if node_id in declared:
            errors.append(f"line {n}: id {node_id!r} declared twice (first on line {declared[node_id]})")
        declared[node_id] = n
        stripped = ENTITY.sub("", label.replace("<br/>", ""))
        if "#" in stripped:
            errors.append(f"line {n}: label {label!r} has a bare '#' (Mermaid entity syntax)")

    for n, line in enumerate(lines[1:], start=2):
        if m := SUBGRAPH.match(line):
            declare(m[1], n, m[2])
            depth += 1
        elif line == "end":
            depth -= 1
            if depth < 0:
                errors.append(f"line {n}: 'end' without a subgraph")
                depth = 0
        elif m := NODE.match(line):
            declare(m[1], n, m[2])
        elif m := EDGE.match(line):
            edges.append((n, m[1], m[3]))
        elif m := CLASSDEF.match(line):
            class_defs.add(m[1])
        elif m := CLASS.match(line):
            class_uses.append((n, m[1].split(","), m[2]))
        else:
            errors.append(f"line {n}: not a statement of the emitted subset: {line!r}")
    if depth:
        errors.append(f"{depth} subgraph(s) not closed with 'end'")
    for n, a, b in edges:
        for node_id in (a, b):
            if node_id not in declared:
                errors.append(f"line {n}: edge names undeclared id {node_id!r}")
    for n, ids, name in class_uses:
        if name not in class_defs:
            errors.append(f"line {n}: class {name!r} has no classDef")
        errors += [f"line {n}: class names undeclared id {i!r}" for i in ids if i not in declared]
    return errors


def mermaid_parse(text: str) -> None:
    """Parse with mermaid itself; pytest.skip when node or the npm modules are absent."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the real Mermaid parser cannot run (grammar check still ran)")
    if not (MERMAID_DIR / "node_modules" / "mermaid").is_dir():
        pytest.skip("mermaid npm modules absent: run `npm ci --prefix tests/mermaid` to parse with Mermaid itself")
    result = subprocess.run([node, str(MERMAID_DIR / "check.mjs")], input=text, capture_output=True, text=True,
                            timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"mermaid rejected the diagram:\n{result.stderr}\n---\n{text}")
