"""README "Your first stack", followed literally: its commands are run against a copy of the repository's stack
layout (`cp` as written, `pulumi config set` as the Pulumi CLI writes a stack file; login and stack init need the
cloud and change no file), then the offline plan of the result has no placeholder left, and the README's API list
holds every API the plan asks for and every service the planned resources call."""

from __future__ import annotations

import json
import re
import shlex
import shutil

import pytest
import yaml

from pathways_gke.day2.checks import API_OF_MODULE
from pathways_gke.plan.engine import plan_file
from tests.conftest import ROOT

PLACEHOLDER = "change-me"
README = (ROOT / "README.md").read_text()


def section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


def first_stack_commands() -> list[list[str]]:
    """The commands of the section's first shell block, comments dropped."""
    block = re.search(r"```bash\n(.*?)```", section("Your first stack"), re.S)
    assert block, "the section has no ```bash block"
    return [shlex.split(line, comments=True) for line in block.group(1).splitlines() if line.split("#")[0].strip()]


def config_set(stack_file, words: list[str]) -> None:
    """`pulumi config set [--path] KEY VALUE` as the CLI writes it into stacks/Pulumi.<stack>.yaml: a namespaced
    key; with --path, `ns:key.a[0].b` sets a value inside the key's object (existing entries kept)."""
    path = "--path" in words
    key, value = [w for w in words if not w.startswith("--")]
    data = yaml.safe_load(stack_file.read_text())
    config = data.setdefault("config", {})
    if not path:
        config[key] = value
    else:
        namespace, rest = key.split(":", 1)
        parts = re.findall(r"[^.\[\]]+|\[\d+\]", rest)
        top, *inner = parts
        target = config.setdefault(f"{namespace}:{top}", {})
        for here in inner[:-1]:
            index = int(here[1:-1]) if here.startswith("[") else here
            target = target[index]
        last = inner[-1]
        target[int(last[1:-1]) if last.startswith("[") else last] = value
    stack_file.write_text(yaml.safe_dump(data, sort_keys=False))


def follow(tmp_path) -> tuple[str, object]:
    """Run the section's commands in a copy of the repository's layout; (stack name, path of its stack file)."""
    (tmp_path / "stacks").mkdir()
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    stack = None
    for words in first_stack_commands():
        match words:
            case ["cp", source, target]:
                shutil.copyfile(tmp_path / source, tmp_path / target)
            case ["pulumi", "login", *_]:
                pass  # the state backend: no file of the project changes
            case ["pulumi", "stack", "init", name]:
                stack = name
            case ["pulumi", "config", "set", *rest]:
                assert stack, "config set before a stack is selected"
                config_set(tmp_path / "stacks" / f"Pulumi.{stack}.yaml", rest)
            case _:
                pytest.fail(f"the first-stack block runs a command this test cannot follow: {shlex.join(words)}")
    assert stack
    return stack, tmp_path / "stacks" / f"Pulumi.{stack}.yaml"


def test_the_example_is_full_of_placeholders_and_the_steps_replace_every_one(tmp_path):
    example = (ROOT / "examples/first-stack/Pulumi.first.yaml").read_text()
    assert example.count(PLACEHOLDER) >= 5
    _, stack_file = follow(tmp_path)
    assert PLACEHOLDER not in stack_file.read_text()


@pytest.mark.slow
def test_the_plan_of_the_first_stack_has_no_placeholder_and_the_readme_enables_every_api_it_needs(tmp_path):
    stack, stack_file = follow(tmp_path)
    plan = plan_file(stack_file, ROOT)
    text = plan.dumps()
    assert plan.stack == stack and PLACEHOLDER not in text
    assert "my-project-123" in text and plan.named("pw-mine-cluster")
    enabled = set(re.search(r"gcloud services enable ([a-z. \n]+?)\s*--project", section("Your first stack"),
                            re.S).group(1).split())
    asked = {api for action in plan.outputs["actionsRequired"] if action.startswith("enable ")
             for api in action.split(" in project")[0].removeprefix("enable ").split(", ")}
    assert asked and asked <= enabled, asked - enabled
    modules = {r.type.split(":")[1].split("/")[0] for r in plan.resources if r.type.startswith("gcp:")}
    called = {API_OF_MODULE[m] for m in modules if m in API_OF_MODULE}
    assert called <= enabled, called - enabled
    assert json.loads(text)["resources"]


@pytest.mark.slow
def test_the_shared_vpc_walkthroughs_stack_puts_the_firewall_in_the_host_and_lists_the_host_grants(tmp_path):
    doc = (ROOT / "docs" / "shared-vpc.md").read_text()
    cluster = yaml.safe_load(re.search(r"```yaml\n(.*?)```", doc, re.S).group(1))["config"]
    stack, stack_file = follow(tmp_path)
    data = yaml.safe_load(stack_file.read_text())
    data["config"].update(cluster)
    stack_file.write_text(yaml.safe_dump(data))
    plan = plan_file(stack_file, ROOT)
    firewall = plan.named("pw-svpc-webhooks")
    assert firewall.inputs["project"] == "acme-net-host"
    actions = "\n".join(plan.outputs["actionsRequired"])
    for grant in ("roles/container.hostServiceAgentUser on project acme-net-host",
                  "roles/compute.networkUser on subnetwork projects/acme-net-host/regions/us-east5/subnetworks/ml-east5",
                  "service-123456789012@container-engine-robot.iam.gserviceaccount.com", "cluster.nat.enabled: true"):
        assert grant in actions, grant
    assert not plan.of_type("gcp:compute/routerNat:RouterNat")  # no NAT in the host's network by default
