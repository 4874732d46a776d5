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


def test_the_key_is_read_only_by_clis_newer_than_the_floor_so_the_program_enforces_it():
    """pulumi CHANGELOG: 3.219.0 "Allow setting `requiredPulumiVersion` in Pulumi.yaml" (#21627); 3.221.0 renamed
    `pulumiVersionRange` to `requiredPulumiVersion` in PulumiPlugin.yaml. A CLI that reads the key is newer than
    the floor, so the floor is enforced by the program (an engine without replaceWith is refused up front)."""
    from pathways_gke.program import MIN_PULUMI_CLI

    assert version(MIN_PULUMI_CLI) == FLOOR < (3, 219, 0)
    plugin = yaml.safe_load((ROOT / "provider/PulumiPlugin.yaml").read_text())
    assert version(plugin["requiredPulumiVersion"]) >= (3, 221, 0)


def test_an_engine_without_replace_with_is_refused_before_anything_is_registered():
    import pulumi
    from pulumi.runtime import mocks as pulumi_mocks
    from pulumi.runtime.proto import resource_pb2

    from pathways_gke.plan.engine import preview_mocks, run_program
    from pathways_gke.program import main

    class OldEngine(pulumi_mocks.MockMonitor):
        registered: list[str] = []

        def GetDeploymentInfo(self, request):
            info = super().GetDeploymentInfo(request)
            features = [f for f in info.supportedFeatures if f != resource_pb2.RESOURCE_MONITOR_FEATURE_REPLACE_WITH]
            return resource_pb2.DeploymentInfo(supportedFeatures=features)

        def RegisterResource(self, request):
            OldEngine.registered.append(request.type)
            return super().RegisterResource(request)

    original = pulumi.runtime.set_mocks

    def set_old_engine_mocks(mocks, **kwargs):
        kwargs["monitor"] = OldEngine(mocks)
        return original(mocks, **kwargs)

    pulumi.runtime.set_mocks = set_old_engine_mocks
    try:
        try:
            run_program(main, stack="dev", project="pathways-gke", config={}, secret_keys=[], mocks=preview_mocks())
        except Exception as exc:  # noqa: BLE001 - the SDK wraps the RunError
            assert "needs a Pulumi CLI >= 3.207.0" in str(exc)
        else:
            raise AssertionError("an engine without replaceWith was accepted")
    finally:
        pulumi.runtime.set_mocks = original
    assert [t for t in OldEngine.registered if t != "pulumi:pulumi:Stack"] == []
