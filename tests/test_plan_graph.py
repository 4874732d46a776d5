"""`pathways-gke graph` and the PR comment: parents nest, dependencies are edges, the diagrams parse."""

import re
import shutil
import subprocess

import pytest

from pathways_gke.plan.diff import diff_plans
from pathways_gke.plan.graph import build_graph, diff_graph, mermaid_text, node_id, plan_graph, to_dot, to_mermaid
from pathways_gke.plan.markdown import extract_mermaid_blocks, render_markdown
from tests.support.mermaid import KEYWORDS, grammar_errors, mermaid_parse
from tests.support.plans import POOL_T, edited, mini_plan, named, resource


def ids_of(plan):
    return {r["name"]: node_id(r["urn"], r["name"]) for r in plan["resources"]}


def test_components_are_subgraphs_holding_their_children():
    plan = mini_plan(slices=2)
    text = to_mermaid(plan_graph(plan))
    ids = ids_of(plan)
    lines = [line.strip() for line in text.splitlines()]
    start = lines.index(f'subgraph {ids["pw-dev-main"]}["pw-dev-main<br/>TpuSliceGroup"]')
    assert lines[start + 1:start + 4] == [f'{ids["pw-dev-main-0"]}["pw-dev-main-0<br/>NodePool"]',
                                          f'{ids["pw-dev-main-1"]}["pw-dev-main-1<br/>NodePool"]', "end"]
    assert grammar_errors(text) == []


def test_dependencies_point_from_dependency_to_dependent_and_providers_are_dotted():
    plan = mini_plan()
    text = to_mermaid(plan_graph(plan))
    ids = ids_of(plan)
    assert f"  {ids['pw-dev-cluster']} --> {ids['pw-dev-main-0']}" in text
    assert f"  {ids['pw-dev-main-0']} --> {ids['train']}" in text
    assert f"  {ids['pw-dev-k8s']} -.-> {ids['pw-dev-hf-token']}" in text
    # an edge that is already a dependency is not drawn twice
    assert f"  {ids['pw-dev-k8s']} -.-> {ids['pw-dev-cluster']}" not in text


def test_node_ids_are_sanitised_stable_and_never_keywords():
    weird = [resource([POOL_T], name) for name in ("end", "graph", 'a "quoted" #name', "o-pool", "x", "-->", "")]
    graph = build_graph(weird)
    for node in graph.nodes.values():
        assert re.fullmatch(r"r_[A-Za-z0-9_]+", node.id) and node.id not in KEYWORDS
    assert len({n.id for n in graph.nodes.values()}) == len(weird)
    assert node_id("urn:a", "end") == node_id("urn:a", "end") != node_id("urn:b", "end")
    text = to_mermaid(graph)
    assert grammar_errors(text) == []
    assert "#quot;quoted#quot; #35;name" in text


def test_label_escaping_leaves_no_raw_mermaid_syntax():
    assert mermaid_text('a"b<c>#d|e`') == "a#quot;b#lt;c#gt;#35;d#124;e#96;"


def test_the_diff_graph_marks_every_touched_resource_and_shows_deleted_ones_as_ghosts():
    old = mini_plan(slices=2)
    new = edited(mini_plan(slices=1, image="us-docker.pkg.dev/acme/train:2026-12"), "pw-dev-cpu",
                 inputs__nodeConfig__machineType="n2-standard-32")
    diff = diff_plans(old, new)
    graph = diff_graph(diff)
    status = {n.name: n.status for n in graph.nodes.values() if n.status}
    assert status == {"pw-dev-main-1": "removed", "train": "replaced", "pw-dev-cpu": "changed"}
    text = to_mermaid(graph)
    ids = ids_of(old)
    assert f"  class {ids['pw-dev-main-1']} removed" in text
    assert f"  class {ids['train']} replaced" in text
    assert "  classDef removed " in text and "classDef added" not in text
    assert grammar_errors(text) == []


def test_grammar_check_catches_what_mermaid_would_reject():
    assert grammar_errors("graph LR\n")  # we only emit flowchart
    assert grammar_errors('flowchart LR\n  subgraph a["x"]\n  b["y"]\n')  # unclosed
    assert grammar_errors('flowchart LR\n  a["x"]\n  a --> b\n')  # undeclared
    assert grammar_errors('flowchart LR\n  end["x"]\n')  # keyword id
    assert grammar_errors('flowchart LR\n  a["say "hi""]\n')  # raw quote
    assert grammar_errors('flowchart LR\n  a["x"]\n  class a missing\n')  # no classDef
    assert grammar_errors('flowchart LR\n  a["#x"]\n')  # bare entity start


def test_markdown_comment_embeds_a_valid_mermaid_block_and_calls_out_slices():
    def placement_replaces(plan):  # TPU pools list their placement in replaceOnChanges (the bridge would update it)
        for r in plan["resources"]:
            if "placementPolicy" in r["inputs"]:
                r["options"]["replaceOnChanges"] = ["placementPolicy"]
        return plan

    diff = diff_plans(placement_replaces(mini_plan(slices=2)), placement_replaces(mini_plan(slices=2, topology="4x4")))
    md = render_markdown(diff)
    assert md.startswith("### pathways-gke plan diff: `dev`")
    assert "> [!CAUTION]" in md and md.index("[!CAUTION]") < md.index("| Action |")
    assert "| **REPLACE** | `pw-dev-main-0` | `NodePool` | `placementPolicy.tpuTopology` (forces replacement)" in md
    [block] = extract_mermaid_blocks(md)
    assert grammar_errors(block) == []
    assert md.count("```") == 2


def test_markdown_without_changes_is_short():
    md = render_markdown(diff_plans(mini_plan(), mini_plan()))
    assert "no changes" in md and "```mermaid" not in md and "CAUTION" not in md


def test_markdown_escapes_pipes_and_backticks_in_table_cells():
    meta = {"name": "hf-token", "namespace": "default", "labels": {"a|b`c": "0"}}
    old = edited(mini_plan(), "pw-dev-hf-token", inputs__metadata=meta)
    new = edited(old, "pw-dev-hf-token", inputs__metadata=dict(meta, labels={"a|b`c": "1"}))
    md = render_markdown(diff_plans(old, new), graph=False)
    assert '`` metadata.labels["a\\|b`c"] ``' in md


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_real_stack_graphs_pass_the_grammar_check(stack, stack_plans):
    plan = stack_plans(stack).to_json()
    text = to_mermaid(plan_graph(plan))
    assert grammar_errors(text) == []
    assert text.count("subgraph ") == sum(1 for r in plan["resources"]
                                          if any(c["parent"] == r["urn"] for c in plan["resources"]))


def test_mermaid_itself_parses_the_diff_comment(stack_plans):
    old = stack_plans("dev").to_json()
    new = edited(old, "pw-dev-main-0", inputs__placementPolicy={"tpuTopology": "4x4", "type": "COMPACT"})
    [block] = extract_mermaid_blocks(render_markdown(diff_plans(old, new)))
    mermaid_parse(block)


def test_mermaid_itself_parses_escaped_labels_and_every_status():
    old = mini_plan(slices=2)
    new = edited(mini_plan(slices=1, image="us-docker.pkg.dev/acme/train:2026-12"), "pw-dev-cpu",
                 inputs__nodeConfig__machineType="n2-standard-32")
    new["resources"].append(resource([POOL_T], 'odd "name" #1 | <b> `x`'))
    mermaid_parse(to_mermaid(diff_graph(diff_plans(old, new))))


def test_dot_output_is_accepted_by_graphviz(stack_plans):
    dot = shutil.which("dot")
    if dot is None:
        pytest.skip("graphviz `dot` is not installed (apt-get install graphviz); DOT output not rendered")
    diff = diff_plans(mini_plan(slices=2), mini_plan(slices=1, topology="4x4"))
    for text in (to_dot(diff_graph(diff)), to_dot(plan_graph(stack_plans("prod").to_json()))):
        result = subprocess.run([dot, "-Tsvg"], input=text, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert "<svg" in result.stdout


def test_dot_nests_components_as_clusters_and_colours_statuses():
    diff = diff_plans(mini_plan(slices=1), mini_plan(slices=2))
    text = to_dot(diff_graph(diff))
    ids = ids_of(mini_plan(slices=2))
    assert f'subgraph "cluster_{ids["pw-dev-main"]}" {{' in text
    assert re.search(rf'"{ids["pw-dev-main-1"]}" \[label="pw-dev-main-1\\nNodePool", fillcolor="#e6ffed"', text)
    assert f'"{ids["pw-dev-k8s"]}" -> "{ids["train"]}" [style=dashed];' in text


def test_graph_output_is_deterministic():
    plan = mini_plan(slices=3)
    shuffled = dict(plan, resources=list(reversed(plan["resources"])))
    assert to_mermaid(plan_graph(plan)) == to_mermaid(plan_graph(shuffled))
    assert to_dot(plan_graph(plan)) == to_dot(plan_graph(shuffled))


def test_unknown_parents_and_dependencies_are_dropped_not_invented():
    plan = mini_plan()
    named(plan, "pw-dev-cpu")["dependsOn"].append("urn:pulumi:dev::p::t::nowhere")
    named(plan, "pw-dev-cpu")["parent"] = "urn:pulumi:dev::p::t::missing-parent"
    graph = plan_graph(plan)
    cpu = next(n for n in graph.nodes.values() if n.name == "pw-dev-cpu")
    assert cpu.parent is None
    assert grammar_errors(to_mermaid(graph)) == []
