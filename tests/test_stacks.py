"""Every stack in stacks/ plans offline; the CLI contract holds for each."""

import json

import pytest
import yaml

from pathways_gke.cli import main as cli_main
from tests.conftest import ROOT, STACKS
from tests.support.stacks import stack


def test_the_design_stacks_exist():
    assert {"dev", "prod"} <= set(STACKS)


@pytest.mark.slow
@pytest.mark.parametrize("stack", STACKS)
def test_stack_plans_as_json_per_the_cli_contract(stack, capsys):
    assert cli_main(["plan", "--stack", stack, "--project-dir", str(ROOT), "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["stack"] == stack and plan["project"] == "pathways-gke"
    assert plan["resources"], "no resources"
    for r in plan["resources"]:
        assert set(r) >= {"urn", "type", "name", "parent", "dependsOn", "inputs", "options"}
        assert set(r["options"]) >= {"protect", "ignoreChanges", "replaceOnChanges", "deleteBeforeReplace",
                                     "aliases", "provider", "retainOnDelete"}
        assert r["urn"].startswith(f"urn:pulumi:{stack}::pathways-gke::")
    text = json.dumps(plan)
    assert "[offline-plan-secret]" not in text


@pytest.mark.slow
@pytest.mark.parametrize("stack", STACKS)
def test_stack_plan_tree_names_every_resource(stack, capsys, stack_plans):
    assert cli_main(["plan", "--stack", stack, "--project-dir", str(ROOT)]) == 0
    out = capsys.readouterr().out
    for r in stack_plans(stack).resources:
        assert r.name in out


@pytest.mark.slow
def test_out_writes_plan_json_and_every_kubernetes_object(tmp_path, stack_plans):
    assert cli_main(["plan", "--stack", "prod", "--project-dir", str(ROOT), "--out", str(tmp_path)]) == 0
    written = json.loads((tmp_path / "plan.json").read_text())
    assert written == json.loads(stack_plans("prod").dumps())
    objects = [yaml.safe_load(p.read_text()) for p in sorted(tmp_path.glob("*.yaml"))]
    assert len(objects) == len(stack_plans("prod").kubernetes_objects())
    for obj in objects:
        assert obj["apiVersion"] and obj["kind"] and obj["metadata"]["name"]


def test_unknown_stack_exits_2(capsys):
    assert cli_main(["plan", "--stack", "nope", "--project-dir", str(ROOT)]) == 2
    assert "Pulumi.dev.yaml" in capsys.readouterr().err


@pytest.mark.slow
def test_secure_config_values_never_appear_in_the_plan(tmp_path, capsys):
    path = tmp_path / "Pulumi.sec.yaml"
    path.write_text(yaml.safe_dump({"config": stack("dev", secrets={"hfToken": {"secure": "v1:c2VjcmV0LXRva2Vu"}})}))
    assert cli_main(["plan", "--config", str(path), "--project-dir", str(ROOT), "--json"]) == 0
    out = capsys.readouterr().out
    assert "c2VjcmV0LXRva2Vu" not in out and "[offline-plan-secret]" not in out
