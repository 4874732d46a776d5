"""Faults end cleanly: exit 2, one message naming the file or path, no traceback, no "Exception ignored" noise at
interpreter exit, and never a secret value in the message. Run as the user runs it (a subprocess)."""

import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT


DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
SECRET = "hunter2-very-secret"


def run(*args: str, cwd=ROOT) -> tuple[int, str, str, float]:
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-W", "default", "-m", "pathways_gke", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started


def assert_clean(code: int, err: str, *fragments: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    for fragment in fragments:
        assert fragment in err, err


def with_secrets(block: str) -> str:
    return DEV.replace("  pathways-gke:workloads:", f"  pathways-gke:secrets:{block}\n  pathways-gke:workloads:")


@pytest.mark.slow
def test_a_directory_as_config(tmp_path):
    code, _, err, _ = run("plan", "--config", str(tmp_path))
    assert_clean(code, err, "is a directory")


@pytest.mark.slow
def test_an_existing_file_as_out(tmp_path):
    out = tmp_path / "plan-out"
    out.write_text("not a directory")
    code, _, err, _ = run("plan", "--stack", "dev", "--out", str(out))
    assert_clean(code, err, "is an existing file")
    assert out.read_text() == "not a directory"


@pytest.mark.slow
def test_a_yaml_alias_bomb_is_refused_in_bounded_time(tmp_path):
    lines = ["config:", "  b0: &b0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"  b{i}: &b{i} [" + ", ".join([f"*b{i - 1}"] * 10) + "]" for i in range(1, 10)]  # 10^10 values
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    code, _, err, seconds = run("plan", "--config", str(path))
    assert_clean(code, err, "excessive aliasing")
    assert seconds < 30


@pytest.mark.slow
def test_a_recursive_alias_is_refused(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("config:\n  a: &a [*a]\n")
    code, _, err, _ = run("plan", "--config", str(path))
    assert_clean(code, err, "recursive")


@pytest.mark.slow
def test_a_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(DEV.replace("acme-ml-dev", "acmé-ml-dev").encode("latin-1"))
    code, _, err, _ = run("plan", "--config", str(path))
    assert_clean(code, err, "is not UTF-8 text")


@pytest.mark.slow
@pytest.mark.parametrize("value,kind", [(f"{{a: {SECRET}}}", "a mapping"), (f"[{SECRET}]", "a list")])
def test_a_secret_whose_value_is_a_mapping_or_a_list(tmp_path, value, kind):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(with_secrets(f"\n    token: {value}"))
    code, _, err, _ = run("plan", "--config", str(path))
    assert_clean(code, err, "secrets.token", kind)
    assert SECRET not in err


@pytest.mark.slow
def test_a_secrets_key_that_is_not_a_mapping_is_not_echoed(tmp_path):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(with_secrets(f" {SECRET}"))
    code, _, err, _ = run("plan", "--config", str(path))
    assert_clean(code, err, "secrets")
    assert SECRET not in err


@pytest.mark.slow
def test_invalid_yaml_and_a_missing_file(tmp_path):
    path = tmp_path / "tabs.yaml"
    path.write_text("config:\n\tpathways-gke:namespace: ml\n")
    code, _, err, _ = run("plan", "--config", str(path))
    assert_clean(code, err, "is not valid YAML")
    code, _, err, _ = run("plan", "--config", str(tmp_path / "absent.yaml"))
    assert_clean(code, err, "does not exist")


@pytest.mark.slow
def test_a_good_plan_exits_quietly():
    code, out, err, _ = run("plan", "--stack", "dev", "--json")
    assert code == 0 and out.startswith("{")
    assert "Exception ignored" not in err and "Traceback" not in err and "ResourceWarning" not in err, err


def test_a_value_set_with_secret_is_not_echoed_when_invalid(tmp_path):
    """`pulumi config set --secret pathways-gke:namespace ...`: the program sees the plaintext; errors must not."""
    from pathways_gke.config.stack import stack_from_cli
    from pathways_gke.config.stack_file import cli_config, read_stack_file
    from pathways_gke.errors import ConfigError

    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(DEV)
    flat, _ = cli_config(read_stack_file(path), "pathways-gke")
    flat["pathways-gke:namespace"] = "Not_A_Namespace-hunter2"
    with pytest.raises(ConfigError) as caught:
        stack_from_cli(flat, ["pathways-gke:namespace"])
    assert "hunter2" not in str(caught.value) and "namespace" in str(caught.value)
    with pytest.raises(ConfigError) as shown:
        stack_from_cli(flat, [])
    assert "hunter2" in str(shown.value)  # not a secret: the value is shown as usual


@pytest.mark.slow
def test_bare_keys_in_a_project_with_another_name_get_a_did_you_mean(tmp_path):
    """Bare keys belong to the project (here `platform`), which this program does not read."""
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text("name: platform\nruntime: python\nstackConfigDir: stacks\n")
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(DEV.replace("  pathways-gke:", "  "))
    code, _, err, _ = run("plan", "--stack", "dev", "--project-dir", str(tmp_path))
    assert_clean(code, err, "platform:cluster: is under the namespace 'platform'", "did you mean 'pathways-gke:cluster'?")
