"""Golden plans: any change of what a shipped stack would register is a deliberate, reviewed change.

Regenerate (after an intended change) with:  python -m pytest tests/test_golden_plans.py --update-golden
"""

import json

import pytest

from tests.conftest import STACKS
from tests.support.golden import (ACCEPT_RENAMES_ENV, GOLDEN_DIR, REGENERATE, explain, unaliased_renames,
                                  update_requested)


@pytest.mark.parametrize("stack", STACKS)
def test_plan_matches_its_golden_snapshot(stack, stack_plans, request):
    current = stack_plans(stack).dumps()
    path = GOLDEN_DIR / f"{stack}.json"
    if update_requested(request.config):
        renames = unaliased_renames(path.read_text(), current) if path.exists() else []
        assert renames == [], (f"refusing to regenerate {path.name}: child names are public API; add aliases "
                               f"or set {ACCEPT_RENAMES_ENV}=1 for an intended break")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(current)
        return
    assert path.exists(), f"no golden snapshot for stack {stack!r} ({path}); create it with: {REGENERATE}"
    golden = path.read_text()
    if golden != current:
        pytest.fail(f"the {stack} plan differs from {path.name}:\n{explain(golden, current)}\n\n"
                    f"If this change is intended, regenerate with: {REGENERATE}", pytrace=False)


def test_every_snapshot_belongs_to_a_stack():
    orphans = sorted(p.stem for p in GOLDEN_DIR.glob("*.json") if p.stem not in STACKS)
    assert orphans == [], f"golden snapshots without a stacks/Pulumi.<name>.yaml: {orphans}"


def test_a_mismatch_is_explained_property_by_property():
    from tests.support.plans import edited, mini_plan

    # the multi-host slice pool as the product renders it: it replaces on its shape (replaceOnChanges), as the
    # bridge alone would not (tpuTopology is not ForceNew inside the ForceNew placementPolicy block)
    old = edited(mini_plan(), "pw-dev-main-0", options__replaceOnChanges=["placementPolicy", "nodeCount"])
    new = edited(old, "pw-dev-main-0", inputs__placementPolicy={"tpuTopology": "4x4", "type": "COMPACT"})
    text = explain(json.dumps(old), json.dumps(new))
    assert "+- gcp:container/nodePool:NodePool  pw-dev-main-0" in text
    assert 'pw-dev-main-0: placementPolicy.tpuTopology: "2x4" -> "4x4"' in text
    moved = dict(old, outputs={"clusterName": "pw-dev"})
    unified = explain(json.dumps(old, indent=2, sort_keys=True), json.dumps(moved, indent=2, sort_keys=True))
    assert "no changes" in unified and '+  "outputs": {' in unified


def test_regenerating_a_snapshot_refuses_a_rename_without_an_alias(monkeypatch):
    from tests.support.plans import mini_plan, named

    old = mini_plan()
    renamed = json.loads(json.dumps(old).replace("::pw-dev-cpu", "::pw-dev-head"))
    named(renamed, "pw-dev-cpu")["name"] = "pw-dev-head"
    [warning] = unaliased_renames(json.dumps(old), json.dumps(renamed))
    assert warning.startswith("pw-dev-head looks like pw-dev-cpu renamed without an alias")
    monkeypatch.setenv(ACCEPT_RENAMES_ENV, "1")
    assert unaliased_renames(json.dumps(old), json.dumps(renamed)) == []
