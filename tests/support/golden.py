"""Golden plan snapshots: tests/golden/plans/<stack>.json, compared on every run.

Regenerate on purpose only:  python -m pytest tests/test_golden_plans.py --update-golden
(or PATHWAYS_GKE_UPDATE_GOLDEN=1). Regenerating does not launder a rename: a resource renamed
without an alias (child names are public API) still fails, unless PATHWAYS_GKE_ACCEPT_RENAMES=1
says the break is intended (and CHANGELOG.md says so too). A mismatch fails with the offline diff of the two plans
(`pathways-gke diff` semantics: which resources were added / removed / changed, which would be
REPLACED, and the old -> new value of every changed property).
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

from pathways_gke.plan.diff import diff_plans, rename_warnings, render_text
from pathways_gke.property_paths import value_at

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden" / "plans"
UPDATE_ENV = "PATHWAYS_GKE_UPDATE_GOLDEN"
ACCEPT_RENAMES_ENV = "PATHWAYS_GKE_ACCEPT_RENAMES"
REGENERATE = "python -m pytest tests/test_golden_plans.py --update-golden"
MAX_VALUE = 120


def update_requested(config: Any) -> bool:
    return bool(config.getoption("--update-golden", default=False)) or os.environ.get(UPDATE_ENV) == "1"


def unaliased_renames(old_text: str, new_text: str) -> list[str]:
    """Why a snapshot may not simply be regenerated: resources renamed without an alias."""
    if os.environ.get(ACCEPT_RENAMES_ENV) == "1":
        return []
    return rename_warnings(diff_plans(json.loads(old_text), json.loads(new_text)))


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True) if value is not None else "(absent)"
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE - 3] + "..."


def explain(old_text: str, new_text: str) -> str:
    """A readable account of how a plan differs from its snapshot."""
    old, new = json.loads(old_text), json.loads(new_text)
    diff = diff_plans(old, new)
    lines = [render_text(diff).rstrip("\n")]
    olds = {r["urn"]: r for r in old["resources"]}
    for change in diff.changed:
        before = olds.get(change.renamed_from or change.urn, {}).get("inputs", {})
        after = diff.new_resources[change.urn].get("inputs", {})
        for path in change.properties:
            lines.append(f"    {change.name}: {path}: {_show(value_at(before, path))} -> {_show(value_at(after, path))}")
    if diff.empty:  # same resources and inputs: dependencies, options or outputs moved
        unified = difflib.unified_diff(old_text.splitlines(), new_text.splitlines(), "golden", "current",
                                       lineterm="", n=2)
        lines += list(unified)[:200]
    return "\n".join(lines)
