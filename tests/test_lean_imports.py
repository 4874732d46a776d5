"""The plan and the diff import only what they use (the first command a newcomer runs should be quick): measured
in a fresh interpreter by the modules it ends with, not by time (times live in bench/)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

# the dev extras `make plan` does not install: the plan must never need them
DEV_ONLY = ("googleapiclient", "kubernetes", "jsonschema", "hypothesis", "check_jsonschema", "pulumi_policy",
            "kubernetes_validate", "jax", "pytest", "mypy", "ruff")


def modules_after(*argv: str) -> set[str]:
    """The modules loaded once `pathways-gke ARGV` has run in a fresh interpreter (not the lazy stand-ins the SDKs
    register for every package they have)."""
    code = ("import contextlib, io, json, sys\n"
            "from pathways_gke.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            f"    main({list(argv)!r})\n"
            # the SDKs register every package as a lazy module (pulumi._utils._LazyModule) until it is first used
            "print(json.dumps(sorted(n for n, m in sys.modules.items() if type(m).__name__ != '_LazyModule')))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(ROOT / "components"), "PATH": "/usr/bin:/bin"}, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def tops(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


@pytest.mark.slow
def test_the_plan_loads_no_dev_extra_no_day2_code_and_only_the_sdk_packages_it_registers():
    loaded = modules_after("plan", "--stack", "dev")
    assert not tops(loaded) & set(DEV_ONLY)
    assert not {m for m in loaded if m.startswith("pathways_gke.day2")}
    # the dev stack registers a cluster, node pools, a service account, project and bucket grants: nothing else
    gcp = {m.split(".")[1] for m in loaded if m.startswith("pulumi_gcp.") and m.count(".") >= 1} - {
        "_utilities", "_inputs", "config", "provider", "name_from_id", "project_from_id", "location_from_id",
        "region_from_id", "region_from_zone", "zone_from_id"}
    assert gcp == {"container", "projects", "serviceaccount", "storage"}


@pytest.mark.slow
def test_a_diff_of_two_plan_files_loads_neither_the_sdk_nor_the_config_models(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"stack": "s", "project": "p", "resources": [], "outputs": {}}))
    loaded = tops(modules_after("diff", str(plan), str(plan)))
    assert not loaded & {"pulumi", "pulumi_gcp", "pulumi_kubernetes", "pydantic", *DEV_ONLY}
