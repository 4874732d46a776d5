"""The GitHub workflows: valid against GitHub's schemas (offline), and safe by construction."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, STACKS
from tests.support.mermaid import grammar_errors


WORKFLOWS = ROOT / ".github" / "workflows"
ACTION = ROOT / ".github" / "actions" / "pulumi" / "action.yml"
SCRIPT = ROOT / ".github" / "scripts" / "offline-diff.sh"
FILES = sorted(WORKFLOWS.glob("*.yml"))
# Any attempt to reach the network goes to a closed port: the schema check must need none.
NO_NETWORK = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
              "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9", "NO_PROXY": ""}


def load(path):
    # PyYAML reads the key `on` as True; GitHub reads it as "on"
    data = yaml.safe_load(path.read_text())
    if True in data:
        data["on"] = data.pop(True)
    return data


def steps(workflow):
    return [s for job in workflow["jobs"].values() for s in job.get("steps", [])]


def check_jsonschema(schema, *paths):
    pytest.importorskip("check_jsonschema", reason="check-jsonschema (dev extra) validates the workflows")
    env = {**os.environ, **NO_NETWORK}
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, paths)],
                          capture_output=True, text=True, env=env, timeout=120)


def test_the_expected_workflows_exist():
    assert [p.name for p in FILES] == ["ci.yml", "deploy.yml", "drift.yml", "pr-comment.yml", "preview.yml"]


@pytest.mark.slow
def test_workflows_validate_against_the_github_workflow_schema_offline():
    result = check_jsonschema("vendor.github-workflows", *FILES)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_the_composite_action_validates_against_the_github_action_schema_offline():
    result = check_jsonschema("vendor.github-actions", ACTION)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_the_schema_check_really_fails_on_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: 3\n")
    assert check_jsonschema("vendor.github-workflows", broken).returncode != 0


@pytest.mark.parametrize("path", FILES + [ACTION], ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_major_version_or_local(path):
    for uses in re.findall(r"uses:\s*(\S+)", path.read_text()):
        assert uses.startswith("./") or re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", uses), uses


def test_pull_request_ci_runs_the_tests_without_any_secret():
    ci = load(WORKFLOWS / "ci.yml")
    assert "pull_request" in ci["on"] and "pull_request_target" not in ci["on"]
    assert ci["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in ci["jobs"].values())
    assert "secrets." not in (WORKFLOWS / "ci.yml").read_text()
    assert any(s.get("run") == "bash .ci/run" for s in ci["jobs"]["test"]["steps"])


def test_pull_request_ci_uploads_the_offline_diff_for_the_comment_workflow():
    job = load(WORKFLOWS / "ci.yml")["jobs"]["offline-diff"]
    runs = " ".join(s.get("run", "") for s in job["steps"])
    assert "head/.github/scripts/offline-diff.sh base head out" in runs
    assert "out/pr-number" in runs
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["name"] == "offline-diff" and upload["if"] == "always()"
    base = next(s for s in job["steps"] if s.get("with", {}).get("path") == "base")
    assert base["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"


def test_the_comment_workflow_never_runs_pull_request_code():
    ci, comment = load(WORKFLOWS / "ci.yml"), load(WORKFLOWS / "pr-comment.yml")
    assert comment["on"] == {"workflow_run": {"workflows": [ci["name"]], "types": ["completed"]}}
    assert comment["permissions"] == {"actions": "read", "pull-requests": "write"}
    for step in steps(comment):
        assert "run" not in step, "no shell steps in the privileged workflow"
        assert not step.get("uses", "").startswith("actions/checkout")
    script = next(s for s in steps(comment) if s.get("uses", "").startswith("actions/github-script"))["with"]["script"]
    assert "pr.head.sha !== process.env.HEAD_SHA" in script  # the PR is verified, not taken from the artifact
    assert "<!-- pathways-gke-offline-diff -->" in script
    assert "<!-- pathways-gke-offline-diff -->" in SCRIPT.read_text()


def test_credentialed_preview_only_for_branches_of_this_repository():
    preview = load(WORKFLOWS / "preview.yml")
    gate = preview["jobs"]["stacks"]["if"]
    assert "github.event.pull_request.head.repo.full_name == github.repository" in gate
    assert "vars.GCP_WORKLOAD_IDENTITY_PROVIDER != ''" in gate
    job = preview["jobs"]["preview"]
    assert job["needs"] == "stacks"  # skipped with it: no credentials, or a fork
    assert job["permissions"] == {"contents": "read", "id-token": "write", "pull-requests": "write"}
    assert job["strategy"]["matrix"]["stack"] == "${{ fromJSON(needs.stacks.outputs.all) }}"
    call = next(s for s in job["steps"] if s.get("uses") == "./.github/actions/pulumi")["with"]
    assert call["command"] == "preview" and call["comment-on-pr"] == "true"


def test_the_stack_matrix_is_every_stack_file(tmp_path):
    out = tmp_path / "github_output"
    env = {**os.environ, "GITHUB_OUTPUT": str(out)}
    subprocess.run([sys.executable, str(ROOT / ".github" / "scripts" / "stacks.py"), str(ROOT)], env=env, check=True)
    values = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert json.loads(values["all"]) == STACKS
    assert json.loads(values["nonprod"]) == [s for s in STACKS if s != "prod"]
    assert values["prod"] == ("true" if "prod" in STACKS else "false")
    for name in ("preview.yml", "drift.yml", "deploy.yml"):
        stacks_job = load(WORKFLOWS / name)["jobs"]["stacks"]
        assert stacks_job["steps"][-1]["run"] == "python3 .github/scripts/stacks.py"


def test_the_pulumi_action_previews_with_diff_and_the_policy_pack():
    action = yaml.safe_load(ACTION.read_text())
    by_uses = {s.get("uses", "").split("@")[0]: s for s in action["runs"]["steps"]}
    pulumi = by_uses["pulumi/actions"]
    assert pulumi["uses"] == "pulumi/actions@v7"
    assert pulumi["with"]["policyPacks"] == "policy" and pulumi["with"]["diff"] is True
    for key in ("command", "refresh", "expect-no-changes", "comment-on-pr"):
        assert pulumi["with"][key] == "${{ inputs.%s }}" % key
    assert by_uses["google-github-actions/auth"]["with"]["workload_identity_provider"]
    assert "gke-gcloud-auth-plugin" in by_uses["google-github-actions/setup-gcloud"]["with"]["install_components"]
    assert (ROOT / "policy" / "PulumiPolicy.yaml").exists()


def test_main_runs_pulumi_up_on_every_stack_then_prod_in_their_environments():
    deploy = load(WORKFLOWS / "deploy.yml")
    assert deploy["on"]["push"] == {"branches": ["main"]}
    up, prod = deploy["jobs"]["up"], deploy["jobs"]["prod"]
    assert up["strategy"]["matrix"]["stack"] == "${{ fromJSON(needs.stacks.outputs.nonprod) }}"
    assert up["environment"] == "${{ matrix.stack }}" and prod["environment"] == "prod"
    assert prod["needs"] == ["stacks", "up"] and "needs.up.result == 'success'" in prod["if"]
    for job, stack in ((up, "${{ matrix.stack }}"), (prod, "prod")):
        assert job["concurrency"]["cancel-in-progress"] is False
        call = next(s for s in job["steps"] if s.get("uses") == "./.github/actions/pulumi")["with"]
        assert call["command"] == "up" and call["stack"] == stack


def test_nightly_drift_check_refreshes_and_expects_no_changes():
    drift = load(WORKFLOWS / "drift.yml")
    assert drift["on"]["schedule"] and "workflow_dispatch" in drift["on"]
    call = next(s for s in steps(drift) if s.get("uses") == "./.github/actions/pulumi")["with"]
    assert call["command"] == "preview" and call["refresh"] == "true" and call["expect-no-changes"] == "true"


# --- the offline-diff script the PR workflow runs ------------------------------------------------------


def tree(tmp_path, name):
    dest = tmp_path / name
    dest.mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", dest / "Pulumi.yaml")
    shutil.copytree(ROOT / "components", dest / "components", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "stacks", dest / "stacks")
    return dest


def run_script(base, head, out):
    if shutil.which("bash") is None:
        pytest.skip("bash is needed to run .github/scripts/offline-diff.sh")
    env = {**os.environ, "PYTHON": sys.executable}
    return subprocess.run(["bash", str(SCRIPT), str(base), str(head), str(out)], capture_output=True, text=True,
                          env=env, timeout=300)


@pytest.mark.slow
def test_offline_diff_script_comments_each_stack_and_flags_a_slice_replacement(tmp_path):
    base, head = tree(tmp_path, "base"), tree(tmp_path, "head")
    dev = head / "stacks" / "Pulumi.dev.yaml"
    # spot -> on-demand: nodeConfig.spot is a ForceNew attribute, every slice pool is replaced
    dev.write_text(dev.read_text().replace("capacity: spot", "capacity: on-demand"))
    result = run_script(base, head, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    comment = (tmp_path / "out" / "comment.md").read_text()
    assert comment.startswith("<!-- pathways-gke-offline-diff -->\n## Offline plan diff")
    sections = {part.split("`", 1)[0]: part for part in comment.split("### pathways-gke plan diff: `")[1:]}
    assert sorted(sections) == STACKS
    assert "> [!CAUTION]" in sections["dev"]
    assert "| **REPLACE** | `pw-dev-main-0` | `NodePool` |" in sections["dev"]
    assert all("**no changes**" in body for name, body in sections.items() if name != "dev")
    mermaid = re.findall(r"```mermaid\n(.*?)```", comment, re.S)
    assert len(mermaid) == 1 and grammar_errors(mermaid[0]) == []
    plans = {p.name for p in (tmp_path / "out" / "plans").glob("*.json")}
    assert plans == {f"{side}-{stack}.json" for side in ("base", "head") for stack in STACKS}
    assert json.loads((tmp_path / "out" / "plans" / "head-dev.json").read_text())["stack"] == "dev"


    # the PR's node-pool guard step (from ci.yml, run as written) fails on this diff
    guard = next(s for s in load(WORKFLOWS / "ci.yml")["jobs"]["offline-diff"]["steps"]
                 if s.get("name", "").startswith("Node-pool guard"))
    assert guard["if"] == "!contains(github.event.pull_request.labels.*.name, 'allow-node-pool-replacement')"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(["bash", "-e", "-c", guard["run"]], cwd=tmp_path, capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 3 and "::error::a node pool (TPU slice)" in result.stdout


@pytest.mark.slow
def test_offline_diff_script_handles_a_new_stack(tmp_path):
    base, head = tree(tmp_path, "base"), tree(tmp_path, "head")
    for t in (base, head):
        (t / "stacks" / "Pulumi.prod.yaml").unlink()  # fewer plans: faster
    (head / "stacks" / "Pulumi.staging.yaml").write_text(
        (head / "stacks" / "Pulumi.dev.yaml").read_text().replace("pw-dev", "pw-stg"))
    result = run_script(base, head, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    comment = (tmp_path / "out" / "comment.md").read_text()
    assert "The base branch has no plan for `staging`" in comment
    staging = comment.split("### pathways-gke plan diff: `staging`")[1]
    assert "to add, 0 to change, 0 to replace, 0 to delete" in staging


@pytest.mark.slow
def test_offline_diff_script_fails_when_the_head_cannot_be_planned(tmp_path):
    base, head = tree(tmp_path, "base"), tree(tmp_path, "head")
    for t in (base, head):
        (t / "stacks" / "Pulumi.dev.yaml").unlink()
    prod = head / "stacks" / "Pulumi.prod.yaml"
    prod.write_text(prod.read_text().replace("slices: 4", "slices: 0"))
    result = run_script(base, head, tmp_path / "out")
    assert result.returncode == 1
    comment = (tmp_path / "out" / "comment.md").read_text()
    assert "### `prod`: the head cannot be planned" in comment and "tpuPools[0]" in comment
