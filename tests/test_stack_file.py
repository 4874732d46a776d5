"""Stack files read exactly as the Pulumi CLI hands them to the program.

Each case is a stack file and the key -> string map the Pulumi CLI (Go, gopkg.in/yaml.v3; pulumi/pulumi
sdk/go/common/workspace/loaders.go and resource/config) would pass the program, written out by hand. The case
runs both ways and the outcomes must agree:

- `pathways-gke plan --config FILE --json` (our reader of the file), and
- the program fed those CLI strings through the Pulumi runtime settings (as `pulumi up` feeds it).
"""

import json
from pathlib import Path

import pytest

from pathways_gke import cli
from pathways_gke.config.stack_file import (SECRET_PLACEHOLDER, cli_config, go_scalar, read_stack_file,
                                             secret_digest)
from pathways_gke.errors import ConfigError
from pathways_gke.plan.engine import run_program
from pathways_gke.program import main as program_main

BASE = """\
config:
  gcp:project: acme-ml-dev
  pathways-gke:cluster:
    name: pw-dev
    location: us-east5
    deletionProtection: false
  pathways-gke:cpuPool:
    machineType: n2-standard-64
    minNodes: 1
    maxNodes: MAXNODES
  pathways-gke:tpuPools:
    - name: main
      type: v6e
      topology: 2x4
      zone: us-east5-b
      capacity: spot
  pathways-gke:workloads:
    - name: train
      tpuPool: main
      image: us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-11-20
      command: python3 train.py
      pathways:
        version: VERSION
        gcsScratch: gs://acme-ml-dev-pathways/tmp
"""


def go_json(value) -> str:
    """What Go's encoding/json prints for plain ASCII data without <, >, & or floats: compact, sorted keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def expected(max_nodes=2, version="jax-0.9.2", **extra) -> dict[str, str]:
    return {
        "gcp:project": "acme-ml-dev",
        "pathways-gke:cluster": go_json({"name": "pw-dev", "location": "us-east5", "deletionProtection": False}),
        "pathways-gke:cpuPool": go_json({"machineType": "n2-standard-64", "minNodes": 1, "maxNodes": max_nodes}),
        "pathways-gke:tpuPools": go_json([{"name": "main", "type": "v6e", "topology": "2x4", "zone": "us-east5-b",
                                           "capacity": "spot"}]),
        "pathways-gke:workloads": go_json([{
            "name": "train", "tpuPool": "main", "image": "us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-11-20",
            "command": "python3 train.py",
            "pathways": {"version": version, "gcsScratch": "gs://acme-ml-dev-pathways/tmp"}}]),
        **extra,
    }


def base(max_nodes="2", version="jax-0.9.2") -> str:
    return BASE.replace("MAXNODES", max_nodes).replace("VERSION", version)


# id -> (stack file text, CLI strings, secret keys, ok)
CASES = {
    "plain": (base(), expected(), [], True),
    # YAML 1.1 booleans are strings in yaml.v3: a namespace called "yes" (PyYAML would read True)
    "yes-is-a-string": (base() + "  pathways-gke:namespace: yes\n", expected(**{"pathways-gke:namespace": "yes"}),
                        [], True),
    # an unquoted date stays the text as written (PyYAML would build a datetime.date)
    "date-stays-text": (base(version="2026-11-20"), expected(version="2026-11-20"), [], True),
    # YAML 1.1 sexagesimal: PyYAML reads 1:30 as 90; yaml.v3 as the string "1:30"
    "sexagesimal-is-a-string": (base(max_nodes="1:30"), expected(max_nodes="1:30"), [], False),
    "go-octal": (base(max_nodes="0o3"), expected(max_nodes=3), [], True),
    "legacy-octal": (base(max_nodes="010"), expected(max_nodes=8), [], True),
    "hex": (base(max_nodes="0x3"), expected(max_nodes=3), [], True),
    "underscores": (base(max_nodes="1_0"), expected(max_nodes=10), [], True),
    # Go's encoding/json prints the float 3.0 as 3
    "integral-float": (base(max_nodes="3.0"), expected(max_nodes=3), [], True),
    "quoted-number-is-text": (base(max_nodes='"3"'), expected(max_nodes="3"), [], True),
    "merge-key": (
        base().replace("    minNodes: 1\n", "    minNodes: 1\n    labels: &team {team: ml}\n").replace(
            "      capacity: spot\n", "      capacity: spot\n      labels: {<<: *team, tier: spot}\n"),
        {**expected(),
         "pathways-gke:cpuPool": go_json({"machineType": "n2-standard-64", "minNodes": 1, "maxNodes": 2,
                                          "labels": {"team": "ml"}}),
         "pathways-gke:tpuPools": go_json([{"name": "main", "type": "v6e", "topology": "2x4", "zone": "us-east5-b",
                                            "capacity": "spot", "labels": {"team": "ml", "tier": "spot"}}])},
        [], True),
    # keys without a namespace belong to the project (loaders.go stackConfigNamespacedWithProject)
    "bare-keys": (base().replace("  pathways-gke:cpuPool:", "  cpuPool:") + "  namespace: ml\n",
                  expected(**{"pathways-gke:namespace": "ml"}), [], True),
    # `pulumi config set pathways-gke:cpuPool.maxNodes 9` without --path stores a flat key
    "flat-key-without-path": (base() + "  pathways-gke:cpuPool.maxNodes: 9\n",
                              expected(**{"pathways-gke:cpuPool.maxNodes": "9"}), [], False),
    "other-namespace": (base() + "  pathway-gke:namespace: ml\n", expected(**{"pathway-gke:namespace": "ml"}),
                        [], False),
    "null-is-empty-text": (base() + "  pathways-gke:namespace:\n", expected(**{"pathways-gke:namespace": ""}),
                           [], False),
    "secure-secret": (
        base().replace("      command: python3 train.py\n",
                       "      command: python3 train.py\n      secretEnv: {HF_TOKEN: hf}\n")
        + "  pathways-gke:secrets:\n    hf:\n      secure: v1:AAAABBBBCCCC\n",
        {**expected(), "pathways-gke:secrets": go_json({"hf": SECRET_PLACEHOLDER + secret_digest("v1:AAAABBBBCCCC", "")}),
         "pathways-gke:workloads": go_json([{
             "name": "train", "tpuPool": "main", "image": "us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-11-20",
             "command": "python3 train.py", "secretEnv": {"HF_TOKEN": "hf"},
             "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-ml-dev-pathways/tmp"}}])},
        ["pathways-gke:secrets"], True),
    # encoding/json escapes <, > and & (and keeps other non-ASCII as is)
    "html-characters": (
        base().replace("      command: python3 train.py\n", "      command: python3 train.py\n"
                       "      env: {NOTE: \"a<b & c>d é\"}\n"),
        {**expected(), "pathways-gke:workloads": go_json([{
            "name": "train", "tpuPool": "main", "image": "us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-11-20",
            "command": "python3 train.py", "env": {"NOTE": "a<b & c>d é"},
            "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-ml-dev-pathways/tmp"}}],
        ).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("\\u00e9", "é")},
        [], True),
    # yaml.v3 decode.go: an explicit key next to a merge overrides the merged one
    "merge-key-overridden": (
        base().replace("    minNodes: 1\n", "    minNodes: 1\n    labels: &team {team: ml, tier: a}\n").replace(
            "      capacity: spot\n", "      capacity: spot\n      labels: {<<: *team, tier: spot}\n"),
        {**expected(),
         "pathways-gke:cpuPool": go_json({"machineType": "n2-standard-64", "minNodes": 1, "maxNodes": 2,
                                          "labels": {"team": "ml", "tier": "a"}}),
         "pathways-gke:tpuPools": go_json([{"name": "main", "type": "v6e", "topology": "2x4", "zone": "us-east5-b",
                                            "capacity": "spot", "labels": {"team": "ml", "tier": "spot"}}])},
        [], True),
    # resolve.go: an int asked for as !!float is that float (Go's encoding/json prints 3.0 as 3)
    "float-tag": (base(max_nodes="!!float 3"), expected(max_nodes=3), [], True),
    # key.go ParseKey: the legacy `ns:config:key` form is `ns:key`
    "legacy-key-form": (base().replace("  pathways-gke:cpuPool:", "  pathways-gke:config:cpuPool:"), expected(),
                        [], True),
    # yaml.go unmarshal: one document; the second is never read
    "second-document-ignored": (base() + "---\nconfig:\n  gcp:project: other-project\n", expected(), [], True),
    # object.go: a key that is not text is spelled with Go's %v (1.5 -> "1.5"), here a node label key
    "float-label-key": (
        base().replace("    minNodes: 1\n", "    minNodes: 1\n    labels: {1.5: x}\n"),
        {**expected(), "pathways-gke:cpuPool": go_json({"machineType": "n2-standard-64", "minNodes": 1,
                                                        "maxNodes": 2, "labels": {"1.5": "x"}})},
        [], True),
    "bool-for-int": (base(max_nodes="true"), expected(max_nodes=True), [], False),
}
ENCODINGS = {"utf-8-bom": lambda t: b"\xef\xbb\xbf" + t.encode(), "utf-16": lambda t: t.encode("utf-16")}


def run_cli_plan(path: Path, capsys) -> tuple[int, str, str]:
    code = cli.main(["plan", "--config", str(path), "--json", "--skip-policy"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_as_pulumi_up(flat: dict[str, str], secret_keys: list[str]) -> tuple[bool, object]:
    """The program with the CLI's strings in the Pulumi runtime settings, as `pulumi up` runs it."""
    try:
        plan = run_program(program_main, stack="case", project="pathways-gke", config=flat, secret_keys=secret_keys)
    except Exception as exc:  # the program ends a bad config with pulumi.RunError
        return False, str(exc)
    return True, plan


def problem_lines(text: str) -> list[str]:
    return sorted(line.strip() for line in text.splitlines() if line.strip().startswith("- "))


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_stack_file_case_agrees_with_the_cli_path(case, tmp_path, capsys):
    text, flat, secret_keys, ok = CASES[case]
    path = tmp_path / "Pulumi.case.yaml"
    path.write_text(text, encoding="utf-8")
    # the reader gives exactly the CLI's strings
    assert cli_config(read_stack_file(path), "pathways-gke") == (flat, secret_keys)
    code, out, err = run_cli_plan(path, capsys)
    up_ok, up = run_as_pulumi_up(flat, secret_keys)
    assert (code == 0) is ok and up_ok is ok, (code, err, up)
    if ok:
        assert json.loads(out)["resources"] == json.loads(up.dumps())["resources"]
    else:
        assert code == 2 and "Traceback" not in err
        assert problem_lines(err) == problem_lines(str(up)) != []


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_encodings_the_cli_accepts_read_the_same(encoding, tmp_path):
    path = tmp_path / "Pulumi.case.yaml"
    path.write_bytes(ENCODINGS[encoding](CASES["plain"][0]))
    assert cli_config(read_stack_file(path), "pathways-gke") == (CASES["plain"][1], [])


def test_case_specific_messages(tmp_path, capsys):
    for case, fragment in (("flat-key-without-path", "use --path"),
                           ("other-namespace", "did you mean 'pathways-gke:namespace'?"),
                           ("sexagesimal-is-a-string", "cpuPool.maxNodes")):
        path = tmp_path / f"{case}.yaml"
        path.write_text(CASES[case][0])
        code, _, err = run_cli_plan(path, capsys)
        assert code == 2 and fragment in err, (case, err)


@pytest.mark.parametrize("text,kind,value", [
    ("yes", "str", "yes"), ("on", "str", "on"), ("True", "bool", True), ("~", "null", None),
    ("0b101", "int", 5), ("-0x10", "int", -16), ("017", "int", 15), ("08", "float", 8.0), ("1e3", "float", 1000.0),
    (".5", "float", 0.5), ("2026-11-20", "str", "2026-11-20"), ("2026-11-20T10:00:00Z", "str", "2026-11-20T10:00:00Z"),
    ("1:30", "str", "1:30"), ("+7", "int", 7), ("v0.10.1", "str", "v0.10.1"), ("1.2.3", "str", "1.2.3"),
])
def test_plain_scalars_resolve_as_yaml_v3(text, kind, value):
    assert go_scalar(text) == (kind, value)


def test_go_json_formats_numbers_as_encoding_json():
    from pathways_gke.config.stack_file import go_json as to_go

    assert to_go({"b": 1.5, "a": [1e21, 1e-7, 100.0, -0.0, 123456789012345678.0]}) == \
        '{"a":[1e+21,1e-7,100,-0,123456789012345680],"b":1.5}'
    with pytest.raises(ConfigError, match="cannot be passed"):
        cli_config({"pathways-gke:x": {"v": float("nan")}}, "pathways-gke")
