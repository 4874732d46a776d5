"""The distribution: sdist and wheel build offline, the wheel installs into a fresh venv and plans a stack."""

import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

import pytest

import pathways_gke
from tests.conftest import ROOT



@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """`python -m build` without build isolation: nothing is downloaded (setuptools and wheel are dev extras)."""
    pytest.importorskip("build", reason="the `build` package (dev extra) is not installed")
    pytest.importorskip("wheel", reason="the `wheel` package (dev extra) is not installed")
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return out

@pytest.mark.slow
def test_sdist_and_wheel_carry_the_version(dist):
    version = pathways_gke.__version__
    assert sorted(p.name for p in dist.iterdir()) == [f"pathways_gke-{version}-py3-none-any.whl",
                                                      f"pathways_gke-{version}.tar.gz"]

@pytest.mark.slow
def test_wheel_contents(dist):
    (wheel,) = dist.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"pathways_gke/py.typed", "pathways_gke/cluster.py", "pathways_gke/args.py",
            "pathways_gke/provider.py", "pathways_gke/data/prices.json"} <= names
    info = f"pathways_gke-{pathways_gke.__version__}.dist-info"
    entry_points = zipfile.ZipFile(wheel).read(f"{info}/entry_points.txt").decode()
    assert "pathways-gke = pathways_gke.cli:run" in entry_points
    assert not [n for n in names if n.startswith(("tests/", "examples/")) or "__pycache__" in n]

@pytest.mark.slow
def test_sdist_can_run_the_tests_and_host_the_provider(dist):
    (sdist,) = dist.glob("*.tar.gz")
    names = set(tarfile.open(sdist).getnames())
    prefix = f"pathways_gke-{pathways_gke.__version__}/"
    for path in ("provider/PulumiPlugin.yaml", "provider/__main__.py", "schema/pathways-gke.schema.json",
                 "stacks/Pulumi.dev.yaml", "tests/conftest.py", "tests/support/examples.py",
                 "tests/data/skypilot_gcp_vms_017e250.csv",
                 "examples/yaml/Pulumi.yaml", "docs/components.md", "Pulumi.yaml", "__main__.py", "CHANGELOG.md"):
        assert prefix + path in names, path
    assert not [n for n in names if "__pycache__" in n]

@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_plans_the_dev_stack(dist, tmp_path):
    """A fresh venv gets only the wheel (pip --no-index --no-deps: nothing downloaded). Its dependencies
    (pulumi, pulumi-gcp, ...) come from this test environment's site-packages, appended to the venv's path
    by a .pth file: plain path entries, so an editable pathways-gke install here cannot shadow the wheel."""
    (wheel,) = dist.glob("*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    parents = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (venv / site.split(str(venv) + "/", 1)[1] / "_dependencies_from_test_env.pth").write_text(
        "\n".join(sorted(parents)) + "\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index",
                              "--no-deps", "--quiet", str(wheel)], capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr[-2000:]

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.run([str(python), "-c", "import importlib.metadata as m, pathways_gke as p; "
                            "print(p.__file__); print(p.__version__, m.version('pathways-gke'))"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert where.returncode == 0, where.stderr
    file, versions = where.stdout.splitlines()
    assert file.startswith(str(venv)), f"imported {file}, not the installed wheel"
    assert versions == f"{pathways_gke.__version__} {pathways_gke.__version__}"

    plan = subprocess.run([str(venv / "bin" / "pathways-gke"), "plan", "--stack", "dev"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert plan.stdout.startswith("stack dev (project pathways-gke):")
    assert "gcp:container/nodePool:NodePool  pw-dev-main-0" in plan.stdout
