"""The Pulumi CLI minimum is stated where users and CI meet it."""

import re

import yaml

from tests.conftest import ROOT

FLOOR = (3, 207, 0)  # ResourceOptions.replace_with needs an engine >= 3.207.0 (pulumi CHANGELOG 3.207.0)


def version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.strip().lstrip(">=v").split("."))


def test_the_project_requires_the_cli_that_supports_replace_with():
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())
    assert project["requiredPulumiVersion"] == ">=3.207.0"
    assert version(project["requiredPulumiVersion"]) == FLOOR


def test_ci_pins_the_cli_it_tests_with_and_it_meets_the_floor():
    pinned = version((ROOT / ".pulumi-version").read_text())
    assert pinned >= FLOOR
    action = yaml.safe_load((ROOT / ".github/actions/pulumi/action.yml").read_text())
    uses = [s for s in action["runs"]["steps"] if str(s.get("uses", "")).startswith("pulumi/actions@")]
    assert uses and all(s["with"]["pulumi-version-file"] == ".pulumi-version" for s in uses)
    for workflow in (ROOT / ".github/workflows").glob("*.yml"):
        text = workflow.read_text()
        assert "pulumi/actions@" not in text or "pulumi-version" in text, workflow.name


def test_the_docs_state_the_minimum():
    for doc in ("README.md", "docs/consuming.md"):
        assert re.search(r"3\.207\.0", (ROOT / doc).read_text()), doc
