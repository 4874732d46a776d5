"""The config `pulumi up` gives the program, corner by corner, read by the one offline reader.

Sources: go-yaml v3.0.1 (decode.go `mapping`/`merge`, resolve.go `resolve`, parserc.go directives, yaml.go
`unmarshal` reads one document); pulumi/pulumi sdk/go/common/resource/config/key.go `ParseKey`, map.go
`UnmarshalYAML` (a Go map: two spellings of one key, one kept at random), sdk/go/common/workspace/loaders.go
(only `config:` is config), project.go (`RewriteShorthandConfigValues`, `Validate`), pkg/workspace/config.go
`mergeConfig` (environment, then project values and defaults).
"""

import json
from pathlib import Path

import pytest

from pathways_gke import cli
from pathways_gke.config.stack import offline_cli_config
from pathways_gke.config.stack_file import cli_config, go_json, parse_config_key, parse_stack_yaml
from pathways_gke.errors import ConfigError

STACK = """\
config:
  gcp:project: acme-ml-dev
  pathways-gke:cluster: {name: pw-dev, location: us-east5, deletionProtection: false}
  pathways-gke:cpuPool: {machineType: n2-standard-64, minNodes: 1, maxNodes: 2}
  pathways-gke:tpuPools:
    - {name: main, type: v6e, topology: 2x4, zone: us-east5-b, capacity: spot}
  pathways-gke:workloads:
    - name: train
      tpuPool: main
      image: us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-11-20
      command: python3 train.py
      pathways: {version: jax-0.9.2, gcsScratch: gs://acme-ml-dev-pathways/tmp}
"""


def flat_of(tmp_path: Path, text: str, project: str | None = None, esc: dict | None = None) -> dict[str, str]:
    path = tmp_path / "Pulumi.case.yaml"
    path.write_text(text)
    if project is not None:
        (tmp_path / "Pulumi.yaml").write_text(project)
    esc_path = None
    if esc is not None:
        esc_path = tmp_path / "env.json"
        esc_path.write_text(json.dumps(esc))
    return offline_cli_config(path, tmp_path if project is not None else None, esc=esc_path)[0]


def plan(tmp_path: Path, text: str, capsys, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "Pulumi.case.yaml"
    path.write_text(text)
    code = cli.main(["plan", "--config", str(path), "--project-dir", str(tmp_path), "--skip-policy", *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_an_explicit_key_overrides_a_merged_one():
    assert parse_stack_yaml("a: &a {x: 1, y: 2}\nb: {<<: *a, x: 3}\n")["b"] == {"x": 3, "y": 2}
    # in a sequence of merges the first mapping wins; an explicit key still wins over all
    assert parse_stack_yaml("a: &a {x: 1}\nb: &b {x: 2, z: 4}\nc: {<<: [*a, *b], z: 5}\n")["c"] == {"x": 1, "z": 5}
    with pytest.raises(ConfigError, match="'<<' is given twice"):
        parse_stack_yaml("a: &a {x: 1}\nb: {<<: *a, <<: *a}\n")


@pytest.mark.parametrize("text,value", [
    ("!!float 5", 5.0), ("!!float '5'", 5.0), ("!!str 5", "5"), ("!!int 0x10", 16), ("!custom text", "text"),
    ("!!binary aGk=", "hi"),
])
def test_explicit_tags_decode_as_yaml_v3(text, value):
    assert parse_stack_yaml(f"v: {text}\n")["v"] == value


@pytest.mark.parametrize("text", ["!!int 1.5", "!!bool yes", "!!null x"])
def test_explicit_tags_yaml_v3_refuses(text):
    with pytest.raises(ConfigError, match="cannot decode"):
        parse_stack_yaml(f"v: {text}\n")


def test_yaml_directive_and_documents_as_yaml_v3():
    assert parse_stack_yaml("%YAML 1.1\n---\na: 1\n") == {"a": 1}
    with pytest.raises(ConfigError, match="incompatible YAML document"):
        parse_stack_yaml("%YAML 1.2\n---\na: 1\n")
    # yaml.v3 Unmarshal reads the first document only; the rest is never parsed
    assert parse_stack_yaml("a: 1\n---\nb: [unclosed\n") == {"a": 1}
    assert parse_stack_yaml("---\n---\na: 1\n") is None


def test_keys_spelled_as_go_formats_them():
    flat, _ = cli_config({"pathways-gke:x": {1.5: "a", 1e6: "b", 1e-5: "c", 100.0: "d", True: "e", None: "f"}},
                         "pathways-gke")
    assert json.loads(flat["pathways-gke:x"]) == {"1.5": "a", "1e+06": "b", "1e-05": "c", "100": "d", "true": "e",
                                                  "<nil>": "f"}
    assert go_json({"k": 1e21}) == '{"k":1e+21}'


@pytest.mark.parametrize("key,parsed", [
    ("gcp:project", "gcp:project"), ("pathways-gke:config:cpuPool", "pathways-gke:cpuPool"),
    ("gcp:foo:bar", None), ("a:b:c:d", None), ("ns:config:", "ns:"),
])
def test_parse_key_as_the_cli(key, parsed):
    assert parse_config_key(key) == parsed


def test_the_legacy_key_form_is_the_key(tmp_path):
    flat = flat_of(tmp_path, STACK.replace("  pathways-gke:cpuPool:", "  pathways-gke:config:cpuPool:"))
    assert json.loads(flat["pathways-gke:cpuPool"])["maxNodes"] == 2


@pytest.mark.parametrize("extra,fragment", [
    ("  gcp:foo:bar: 1\n", "not a configuration key the Pulumi CLI accepts"),
    ("  cpuPool: {maxNodes: 3}\n", "keeps one of the two at random"),
    ("  pathways-gke:config:cpuPool: {maxNodes: 3}\n", "keeps one of the two at random"),
])
def test_keys_the_cli_refuses_or_picks_at_random(extra, fragment, tmp_path, capsys):
    code, _, err = plan(tmp_path, STACK + extra, capsys)
    assert code == 2 and fragment in err and "Traceback" not in err


def test_a_file_without_config_has_no_config(tmp_path, capsys):
    body = "\n".join(line[2:] for line in STACK.splitlines()[1:]) + "\n"
    code, _, err = plan(tmp_path, body, capsys)
    assert code == 2 and "outside `config:`" in err and "gcp:project" in err
    # a file with only CLI keys and no config block has no config
    code, _, err = plan(tmp_path, "secretsprovider: passphrase\n", capsys)
    assert code == 2 and "cluster: is required but missing" in err and "gcp:project" in err


@pytest.mark.slow
def test_project_values_and_defaults_are_merged(tmp_path, capsys):
    project = ("name: pathways-gke\nruntime: python\nconfig:\n  namespace: ml\n"
               "  gcp:project: acme-ml-dev\n"
               "  pathways-gke:cpuPool:\n    type: object\n    default: {machineType: n2-standard-64}\n")
    stack = STACK.replace("  gcp:project: acme-ml-dev\n", "").replace(
        "  pathways-gke:cpuPool: {machineType: n2-standard-64, minNodes: 1, maxNodes: 2}\n", "")
    flat = flat_of(tmp_path, stack, project)
    assert flat["pathways-gke:namespace"] == "ml" and flat["gcp:project"] == "acme-ml-dev"
    assert json.loads(flat["pathways-gke:cpuPool"]) == {"machineType": "n2-standard-64"}
    # a stack value wins over the project default
    assert flat_of(tmp_path, stack + "  namespace: team\n", project)["pathways-gke:namespace"] == "team"
    code, out, err = plan(tmp_path, stack, capsys, "--json")
    assert code == 0, err
    assert any(r["inputs"].get("metadata", {}).get("namespace") == "ml" for r in json.loads(out)["resources"]
               if isinstance(r.get("inputs"), dict))


@pytest.mark.parametrize("config,fragment", [
    ("  region:\n    type: string\n", "is missing configuration value 'region'"),
    ("  gcp:zone:\n    default: us-east5-b\n", "cannot define a default"),
    ("  namespace:\n    type: integer\n", "must be of type 'integer'"),
    ("  x:\n    default: 1\n    value: 2\n", "both a 'default' and 'value'"),
    ("  cpuPool: {machineType: n2-standard-32}\n", "an object value goes under `default:`"),
])
def test_project_config_the_cli_refuses(config, fragment, tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text(f"name: pathways-gke\nruntime: python\nconfig:\n{config}")
    code, _, err = plan(tmp_path, STACK + "  namespace: ml\n", capsys)
    assert code == 2 and fragment in err and "Traceback" not in err


@pytest.mark.slow
def test_an_esc_environment_is_refused_offline_or_read_from_its_export(tmp_path, capsys):
    stack = STACK.replace("  pathways-gke:cpuPool: {machineType: n2-standard-64, minNodes: 1, maxNodes: 2}\n", "")
    stack = "environment:\n  - acme/ml/dev\n" + stack + "  pathways-gke:cpuPool: {maxNodes: 3}\n"
    code, _, err = plan(tmp_path, stack, capsys)
    assert code == 2 and "--esc-env" in err and "esc env open" in err
    env = {"pulumiConfig": {"cpuPool": {"machineType": "n2-standard-64", "maxNodes": 9}, "namespace": "ml"},
           "environmentVariables": {"X": "y"}}
    flat = flat_of(tmp_path, stack, esc=env)
    # the stack's value wins key by key (JSON merge patch), the environment fills the rest
    assert json.loads(flat["pathways-gke:cpuPool"]) == {"machineType": "n2-standard-64", "maxNodes": 3}
    assert flat["pathways-gke:namespace"] == "ml"
    (tmp_path / "env.json").write_text(json.dumps(env))
    code, _, err = plan(tmp_path, stack, capsys, "--esc-env", str(tmp_path / "env.json"))
    assert code == 0, err
    (tmp_path / "env.json").write_text("not json")
    code, _, err = plan(tmp_path, stack, capsys, "--esc-env", str(tmp_path / "env.json"))
    assert code == 2 and "esc env open" in err and "Traceback" not in err


@pytest.mark.parametrize("edit,fragment", [
    (("maxNodes: 2", "maxNodes: true"), "cpuPool.maxNodes: true is invalid: should be an integer, not a boolean"),
    (("minNodes: 1", "minNodes: false"), "cpuPool.minNodes: false is invalid"),
])
def test_int_fields_refuse_booleans(edit, fragment, tmp_path, capsys):
    code, _, err = plan(tmp_path, STACK.replace(*edit), capsys)
    assert code == 2 and fragment in err


@pytest.mark.slow
def test_env_values_are_verbatim(tmp_path, capsys):
    text = STACK.replace("command: python3 train.py", 'command: python3 train.py\n      env: {SPACE: " ", PAD: " a "}')
    code, out, err = plan(tmp_path, text, capsys, "--json")
    assert code == 0, err
    compact = json.dumps(json.loads(out))
    assert '{"name": "SPACE", "value": " "}' in compact and '{"name": "PAD", "value": " a "}' in compact


@pytest.mark.parametrize("raw", [b"config:\n  a: \"\x00\"\n", b"config:\n  gcp:project: \x1b[31mred\n"])
def test_control_characters_in_the_file_are_a_clear_error(raw, tmp_path, capsys):
    path = tmp_path / "Pulumi.case.yaml"
    path.write_bytes(raw)
    code = cli.main(["plan", "--config", str(path), "--skip-policy"])
    err = capsys.readouterr().err
    assert code == 2 and "control characters are not allowed" in err and "Traceback" not in err
    assert "\x1b" not in err and "\x00" not in err


def test_an_escaped_control_code_is_never_echoed_raw(tmp_path, capsys):
    code, _, err = plan(tmp_path, STACK + '  "pathways-gke:\\e[31mred": 1\n  pathways-gke:namespace: "a\\e[0mb"\n',
                        capsys)
    assert code == 2 and "\x1b" not in err and "\\x1b" in err


@pytest.mark.slow
def test_plan_stack_in_a_consumer_project(tmp_path, capsys):
    """docs/consuming.md: `pathways-gke plan --stack <s>` in a project of the consumer's own (its name, its
    program, its config keys): the policy step must not read the consumer's stack file as this project's config."""
    import shutil

    example = Path(__file__).resolve().parents[1] / "examples" / "platform-python"
    project = tmp_path / "consumer"
    shutil.copytree(example, project)
    (project / "Pulumi.yaml").write_text((project / "Pulumi.yaml").read_text().replace("ml-platform", "acme-infra"))
    stack = (project / "Pulumi.shared.yaml").read_text().replace("ml-platform:", "acme-infra:")
    (project / "Pulumi.shared.yaml").write_text(stack)
    (project / "__main__.py").write_text((project / "__main__.py").read_text().replace("ml-platform", "acme-infra"))
    code = cli.main(["plan", "--stack", "shared", "--project-dir", str(project)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "urn:pulumi:shared::acme-infra::" in cli_plan_json(project, capsys)


def cli_plan_json(project: Path, capsys) -> str:
    assert cli.main(["plan", "--stack", "shared", "--project-dir", str(project), "--json"]) == 0
    return capsys.readouterr().out
