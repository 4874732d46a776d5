"""The policy pack is publishable: everything it needs is in policy/ or in its requirements."""

import re
import subprocess
import sys

import pytest
import yaml
from packaging.requirements import Requirement

from pathways_gke import __version__
from tests.conftest import ROOT

POLICY = ROOT / "policy"


def test_the_pack_code_reaches_nothing_outside_its_folder():
    """Its code imports the installed package only (no sys.path edits); the one path outside the folder is the
    requirement naming this checkout, which a staged pack replaces with a wheel of its own."""
    for path in POLICY.rglob("*.py"):
        if "venv" not in path.parts:
            text = path.read_text()
            assert "../" not in text and "parent.parent" not in text and "sys.path" not in text, path.name


def test_the_pack_installs_the_package_from_this_checkout_never_from_an_index():
    """Dependency confusion: a bare `pathways-gke>=…` would be looked up on the public index, where a package of
    that name published by anyone else would win; the requirement is this checkout, by path (pip runs in policy/
    under `pulumi install`, so `..` is the repository)."""
    from pathways_gke.policy_publish import index_requirements

    text = (POLICY / "requirements.txt").read_text()
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    assert ".." in lines
    requirements = {Requirement(line).name: Requirement(line) for line in index_requirements(text)}
    assert "pathways-gke" not in requirements and set(requirements) == {"pulumi-policy"}
    assert (POLICY / ".." / "pyproject.toml").resolve() == ROOT / "pyproject.toml"


def test_the_pack_version_is_the_package_version():
    from pathways_gke.policy_publish import main

    manifest = yaml.safe_load((POLICY / "PulumiPolicy.yaml").read_text())
    assert manifest["version"] == __version__
    assert main(["--check"]) == 0


@pytest.mark.slow
def test_a_staged_pack_is_self_contained_and_names_its_wheel_by_path(tmp_path):
    pytest.importorskip("build", reason="the `build` package (dev extra) is not installed")
    from pathways_gke.policy_publish import stage

    out = stage(tmp_path / "pack")
    wheel = out / f"pathways_gke-{__version__}-py3-none-any.whl"
    assert wheel.is_file()
    lines = [line for line in (out / "requirements.txt").read_text().splitlines() if not line.startswith("#")]
    assert lines[0] == f"./{wheel.name}" and not any(Requirement(line).name == "pathways-gke"
                                                     for line in lines[1:])
    assert yaml.safe_load((out / "PulumiPolicy.yaml").read_text())["version"] == __version__
    assert (out / "__main__.py").read_text() == (POLICY / "__main__.py").read_text()
    # pip resolves the staged requirements from the folder alone (the wheel by path, no index for the package)
    result = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index",
                             f"./{wheel.name}"], cwd=out, capture_output=True, text=True)
    assert result.returncode == 0 and f"pathways-gke-{__version__}" in result.stdout, result.stderr


def test_the_pack_has_its_own_virtualenv_and_the_docs_say_pulumi_install_first():
    manifest = yaml.safe_load((POLICY / "PulumiPolicy.yaml").read_text())
    assert manifest["runtime"]["options"]["virtualenv"] == "venv"
    ci = (ROOT / "docs/ci.md").read_text()
    install, preview = ci.index("pulumi install"), ci.index("--policy-pack policy")
    assert install < preview
    assert re.search(r"cd policy && pulumi install", (ROOT / "README.md").read_text())
