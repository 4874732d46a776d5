"""The policy pack is publishable: everything it needs is in policy/ or in its requirements."""

import re

import yaml
from packaging.requirements import Requirement

from pathways_gke import __version__
from tests.conftest import ROOT

POLICY = ROOT / "policy"


def test_the_pack_reaches_nothing_outside_its_folder():
    for path in POLICY.rglob("*"):
        if path.is_file() and "venv" not in path.parts:
            text = path.read_text()
            assert "../" not in text and "parent.parent" not in text and "sys.path" not in text, path.name


def test_the_pack_requires_the_released_package_of_this_version():
    lines = [line for line in (POLICY / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    requirements = {Requirement(line).name: Requirement(line) for line in lines}
    assert "pathways-gke" in requirements and requirements["pathways-gke"].url is None
    assert requirements["pathways-gke"].specifier.contains(__version__)
    assert "pulumi-policy" in requirements


def test_the_pack_has_its_own_virtualenv_and_the_docs_say_pulumi_install_first():
    manifest = yaml.safe_load((POLICY / "PulumiPolicy.yaml").read_text())
    assert manifest["runtime"]["options"]["virtualenv"] == "venv"
    ci = (ROOT / "docs/ci.md").read_text()
    install, preview = ci.index("pulumi install"), ci.index("--policy-pack policy")
    assert install < preview
    assert re.search(r"cd policy && pulumi install", (ROOT / "README.md").read_text())
