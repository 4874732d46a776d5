"""What a release publishes is current: workflow actions on Node 24 majors, jobs in their stacks' environments,
the package license as an SPDX expression (PEP 639)."""

import re
import tomllib

import yaml

from tests.conftest import ROOT

# The first major of each action that runs on Node 24 (`runs.using: node24`; GitHub removes the Node 20 runtime):
# actions/checkout v5, setup-python v6, setup-node v5, upload-artifact v6, download-artifact v7, github-script v8,
# google-github-actions/auth v3 and setup-gcloud v3 (their release notes), pulumi/actions v7 (v7.0.0).
NODE24_MAJORS = {
    "actions/checkout": 5, "actions/setup-python": 6, "actions/setup-node": 5, "actions/upload-artifact": 6,
    "actions/download-artifact": 7, "actions/github-script": 8, "google-github-actions/auth": 3,
    "google-github-actions/setup-gcloud": 3, "pulumi/actions": 7,
}
WORKFLOW_FILES = [*sorted((ROOT / ".github/workflows").glob("*.yml")), ROOT / ".github/actions/pulumi/action.yml"]


def test_every_action_is_on_a_node24_major():
    seen = set()
    for path in WORKFLOW_FILES:
        for action, major in re.findall(r"uses:\s*([\w.-]+/[\w.-]+)@v(\d+)", path.read_text()):
            assert action in NODE24_MAJORS, (path.name, action)
            assert int(major) >= NODE24_MAJORS[action], (path.name, action, major)
            seen.add(action)
    assert {"actions/checkout", "actions/setup-python", "pulumi/actions"} <= seen


def test_jobs_with_cloud_credentials_run_in_their_stacks_environment():
    for name, job in (("preview.yml", "preview"), ("drift.yml", "drift"), ("deploy.yml", "up")):
        workflow = yaml.safe_load((ROOT / ".github/workflows" / name).read_text())
        assert workflow["jobs"][job]["environment"] == "${{ matrix.stack }}", name


def test_the_license_is_an_spdx_expression_with_a_setuptools_that_reads_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    requires = project["build-system"]["requires"]
    assert any(re.fullmatch(r"setuptools>=(\d+)", r) and int(r.split(">=")[1]) >= 77 for r in requires), requires
