"""No secret value in any message, output or resource input: a secret-rich stack, every way the CLI can print.

The stack holds `secure:` values everywhere a user might put them. Offline the values are ciphertexts (the
plan cannot open them); under `pulumi up` the CLI hands the program their plaintext, marking the keys secret
(PULUMI_CONFIG_SECRET_KEYS). Every text is scanned for every ciphertext, every plaintext and a token pasted
into `secretEnv`:

- `pathways-gke plan`, `plan --json`, `diff`, and the errors of many bad stacks (exit codes, stdout, stderr);
- the program run as `pulumi up` runs it (the CLI's decrypted strings and secret keys): its error text, or,
  for a good stack, every resource input it registers (a secret reaches a resource only as a Pulumi secret).
"""

import json
import re
from pathlib import Path

import pytest

from pathways_gke import cli
from pathways_gke.config.stack_file import cli_config, is_secure, namespaced_config, read_stack_document
from pathways_gke.plan.engine import run_program
from pathways_gke.program import main as program_main

PASTED = "hf_PASTEDxTOKENx0123456789"

GOOD = """\
config:
  gcp:project: acme-ml-dev
  gcp:credentials:
    secure: v1:CIPHER-gcp-credentials
  pathways-gke:cluster: {name: pw-dev, location: us-east5, deletionProtection: false}
  pathways-gke:cpuPool: {machineType: n2-standard-64, minNodes: 1, maxNodes: 2}
  pathways-gke:tpuPools:
    - {name: main, type: v6e, topology: 2x4, zone: us-east5-b, capacity: spot}
  pathways-gke:secrets:
    hf:
      secure: v1:CIPHER-hf-token
    wandb:
      secure: v1:CIPHER-wandb-key
  pathways-gke:workloads:
    - name: train
      tpuPool: main
      image: us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-11-20
      command: python3 train.py
      env: {PLAIN: visible}
      secretEnv: {HF_TOKEN: hf, WANDB_API_KEY: wandb}
      pathways: {version: jax-0.9.2, gcsScratch: gs://acme-ml-dev-pathways/tmp}
"""


def edit(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


# bad stacks: each must be refused (exit 2) without printing any secret
BAD = {
    "secure-env-value": edit("env: {PLAIN: visible}", "env: {PLAIN: visible, TOKEN: {secure: v1:CIPHER-env}}"),
    "pasted-token-in-secretEnv": edit("WANDB_API_KEY: wandb}", f"WANDB_API_KEY: {PASTED}}}"),
    "secure-cluster-name": edit("{name: pw-dev,", "{name: {secure: v1:CIPHER-cluster-name},"),
    "secure-namespace": GOOD + "  pathways-gke:namespace:\n    secure: v1:CIPHER-namespace\n",
    "secure-project": edit("gcp:project: acme-ml-dev", "gcp:project:\n    secure: v1:CIPHER-project"),
    "secure-image": edit("image: us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-11-20",
                         "image: {secure: v1:CIPHER-image}"),
    "secret-as-list": edit("hf:\n      secure: v1:CIPHER-hf-token",
                           "hf:\n      - secure: v1:CIPHER-list-item"),
    "secure-unknown-key": GOOD + "  pathways-gke:tokens:\n    secure: v1:CIPHER-unknown\n",
    "secure-flat-key": GOOD + "  pathways-gke:cpuPool.maxNodes:\n    secure: v1:CIPHER-flat\n",
    "secure-bad-max-nodes": edit("maxNodes: 2}", "maxNodes: {secure: v1:CIPHER-max-nodes}}"),
    "secure-in-tpu-pool": edit("capacity: spot}", "capacity: {secure: v1:CIPHER-capacity}}"),
}


def plaintext_of(cipher: str) -> str:
    return "PLAIN-" + cipher.removeprefix("v1:CIPHER-") + "-xyz"


def secrets_in(text: str) -> set[str]:
    ciphers = set(re.findall(r"v1:CIPHER-[a-z-]+", text))
    return {*ciphers, *(plaintext_of(c) for c in ciphers), PASTED}


def decrypted(value):
    """What the CLI decrypts a `secure:` value to (a distinct plaintext per ciphertext)."""
    if is_secure(value):
        return plaintext_of(value["secure"])
    if isinstance(value, dict):
        return {k: decrypted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decrypted(v) for v in value]
    return value


def as_pulumi_up(path: Path) -> tuple[dict[str, str], list[str]]:
    """The strings and secret keys `pulumi up` hands the program for this stack file."""
    config = namespaced_config(read_stack_document(path).get("config") or {}, "pathways-gke")
    _, secret_keys = cli_config(config, "pathways-gke")
    flat, _ = cli_config({k: decrypted(v) for k, v in config.items()}, "pathways-gke")
    return flat, secret_keys


def run_cli(argv: list[str], capsys) -> tuple[int, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def assert_no_secret(text: str, secrets: set[str], where: str) -> None:
    leaked = sorted(s for s in secrets if s in text)
    assert not leaked, f"{where} shows {leaked}:\n{text}"


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_secret_rich_stack_is_refused_without_showing_a_secret(case, tmp_path, capsys):
    path = tmp_path / f"Pulumi.{case}.yaml"
    path.write_text(BAD[case])
    secrets = secrets_in(BAD[case])
    for argv in (["plan", "--config", str(path)], ["plan", "--config", str(path), "--json"],
                 ["diff", str(path), str(path)]):
        code, text = run_cli(argv, capsys)
        assert code == 2, (argv, text)
        assert "Traceback" not in text and "invalid config" in text
        assert_no_secret(text, secrets, " ".join(argv[:2]))
    # under `pulumi up`: the decrypted values, the keys marked secret
    flat, secret_keys = as_pulumi_up(path)
    with pytest.raises(Exception) as raised:
        run_program(program_main, stack=case, project="pathways-gke", config=flat, secret_keys=secret_keys)
    assert_no_secret(str(raised.value), secrets, "pulumi up")


def test_a_secure_env_value_is_refused_with_the_move_to_secret_env(tmp_path, capsys):
    path = tmp_path / "Pulumi.env.yaml"
    path.write_text(BAD["secure-env-value"])
    code, text = run_cli(["plan", "--config", str(path)], capsys)
    assert code == 2
    assert "workloads[0].env.TOKEN: is a secret" in text
    assert "pathways-gke:secrets.token" in text and "workloads[0].secretEnv.TOKEN: token" in text


def test_under_pulumi_up_a_secure_value_outside_secrets_is_refused_naming_the_key(tmp_path):
    """Without the stack file at hand the program only knows the key is secret: it names the key."""
    path = tmp_path / "Pulumi.env.yaml"
    path.write_text(BAD["secure-env-value"])
    flat, secret_keys = as_pulumi_up(path)
    assert "pathways-gke:workloads" in secret_keys
    with pytest.raises(Exception, match=r"pathways-gke:workloads: holds a value set with --secret") as raised:
        run_program(program_main, stack="env", project="pathways-gke", config=flat, secret_keys=secret_keys)
    assert "secretEnv" in str(raised.value)


@pytest.mark.slow
def test_a_good_secret_rich_stack_plans_without_showing_a_secret(tmp_path, capsys):
    path = tmp_path / "Pulumi.good.yaml"
    path.write_text(GOOD)
    secrets = secrets_in(GOOD)
    for argv in (["plan", "--config", str(path)], ["plan", "--config", str(path), "--json"],
                 ["plan", "--config", str(path), "--out", str(tmp_path / "out")],
                 ["diff", str(path), str(path)], ["diff", str(path), str(path), "--markdown"]):
        code, text = run_cli(argv, capsys)
        assert code == 0, (argv, text)
        assert_no_secret(text, secrets, " ".join(argv[:2]))
    for written in (tmp_path / "out").rglob("*"):
        if written.is_file():
            assert_no_secret(written.read_text(), secrets, str(written))
    # under `pulumi up` the plaintexts are in the config: no resource input holds one in the clear
    flat, secret_keys = as_pulumi_up(path)
    assert secret_keys == ["gcp:credentials", "pathways-gke:secrets"]
    plan = run_program(program_main, stack="good", project="pathways-gke", config=flat, secret_keys=secret_keys)
    assert_no_secret(plan.dumps(), secrets, "the resource inputs under pulumi up")
    secret = next(r for r in plan.resources if r.type == "kubernetes:core/v1:Secret")
    assert json.dumps(plain_inputs(secret)).count("<secret>") >= 1


def plain_inputs(resource) -> dict:
    return json.loads(json.dumps(resource.to_json()["inputs"], default=str))


@pytest.mark.slow
def test_whole_map_secure_secrets_are_accepted(tmp_path, capsys):
    """`pulumi config set --secret pathways-gke:secrets '{"hf":"…","wandb":"…"}'` writes one secure value."""
    text = edit("hf:\n      secure: v1:CIPHER-hf-token\n    wandb:\n      secure: v1:CIPHER-wandb-key",
                "secure: v1:CIPHER-whole-map")
    path = tmp_path / "Pulumi.whole.yaml"
    path.write_text(text)
    code, out = run_cli(["plan", "--config", str(path), "--json"], capsys)
    assert code == 0, out
    secret = next(r for r in json.loads(out[:out.rindex("}") + 1])["resources"]
                  if r["type"] == "kubernetes:core/v1:Secret")
    assert secret["inputs"]["stringData"].startswith("<secret:")  # the whole map's salted digest
    assert_no_secret(out, secrets_in(text), "plan --json")
    # under `pulumi up` the value is the JSON object's text, the key secret
    flat, secret_keys = as_pulumi_up(path)
    flat["pathways-gke:secrets"] = json.dumps({"hf": "PLAIN-hf-xyz", "wandb": "PLAIN-wandb-xyz"})
    plan = run_program(program_main, stack="whole", project="pathways-gke", config=flat, secret_keys=secret_keys)
    assert "PLAIN-hf-xyz" not in plan.dumps() and "PLAIN-wandb-xyz" not in plan.dumps()
    # a whole-map secret whose text is not an object is refused without showing it
    flat["pathways-gke:secrets"] = "PLAIN-not-an-object-xyz"
    with pytest.raises(Exception, match="secrets: must be a mapping") as raised:
        run_program(program_main, stack="whole", project="pathways-gke", config=flat, secret_keys=secret_keys)
    assert "PLAIN-not-an-object-xyz" not in str(raised.value)


def test_under_pulumi_up_in_its_project_the_refusal_names_the_secure_value_like_the_offline_plan(tmp_path, capsys,
                                                                                               monkeypatch):
    """`pulumi up` runs the program in the project directory: the program finds the stack file there (only to
    locate the `secure:` values, never to decrypt them) and names the same path as the offline plan."""
    (tmp_path / "Pulumi.yaml").write_text("name: pathways-gke\nruntime: python\nstackConfigDir: stacks\n")
    (tmp_path / "stacks").mkdir()
    path = tmp_path / "stacks" / "Pulumi.env.yaml"
    path.write_text(BAD["secure-env-value"])
    code, offline = run_cli(["plan", "--stack", "env", "--project-dir", str(tmp_path)], capsys)
    assert code == 2
    flat, secret_keys = as_pulumi_up(path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Exception) as raised:
        run_program(program_main, stack="env", project="pathways-gke", config=flat, secret_keys=secret_keys)
    line = "workloads[0].env.TOKEN: is a secret"
    assert line in offline and line in str(raised.value)
    assert_no_secret(str(raised.value), secrets_in(BAD["secure-env-value"]), "pulumi up")


@pytest.mark.slow
@pytest.mark.parametrize("salt", ["", "encryptionsalt: v1:SALTSALT:v1:AAAA:BBBB\n"], ids=["no-salt-key", "salted"])
def test_a_changed_secret_value_shows_as_changed_secret_and_replaces_the_secret(tmp_path, capsys, salt):
    """A new ciphertext (a new value) is a changed input, seen only through a salted digest of the ciphertext;
    pulumi-kubernetes replaces a Secret on a stringData change (provider/pkg/provider/diff.go: `.type`,
    `.stringData`, `.data` are force-new for a Secret unless enableSecretMutable), so the diff says replace."""
    import hashlib

    old_path, new_path, same_path = (tmp_path / "old" / "Pulumi.dev.yaml", tmp_path / "new" / "Pulumi.dev.yaml",
                                     tmp_path / "same" / "Pulumi.dev.yaml")
    changed = GOOD.replace("v1:CIPHER-hf-token", "v1:CIPHER-hf-rotated")
    for path, text in ((old_path, GOOD), (new_path, changed), (same_path, GOOD)):
        path.parent.mkdir()
        path.write_text(salt + text)
    secrets = secrets_in(GOOD) | secrets_in(changed)

    code, out = run_cli(["diff", str(old_path), str(new_path), "--json"], capsys)
    assert code == 0, out
    assert_no_secret(out, secrets, "diff --json")
    result = json.loads(out)
    (secret,) = [c for c in result["changed"] if c["type"] == "kubernetes:core/v1:Secret"]
    assert secret["secretChanged"] == ["stringData"] and secret["verdict"] == "replace"
    assert secret["replaceMode"] == "delete-first" and "stringData" in secret["replaceReasons"]
    for argv in (["diff", str(old_path), str(new_path)], ["diff", str(old_path), str(new_path), "--markdown"]):
        code, text = run_cli(argv, capsys)
        assert code == 0 and "changed (secret)" in text
        assert_no_secret(text, secrets, " ".join(argv[:1]))
    # the digest in the plan: salted, of the ciphertext, never the plaintext nor an unsalted hash of either
    code, plan = run_cli(["plan", "--config", str(old_path), "--json"], capsys)
    marker = next(r for r in json.loads(plan[:plan.rindex("}") + 1])["resources"]
                  if r["type"] == "kubernetes:core/v1:Secret")["inputs"]["stringData"]
    assert marker.startswith("<secret:") and len(marker) == len("<secret:>") + 12
    for value in ("v1:CIPHER-hf-token", plaintext_of("v1:CIPHER-hf-token"), "v1:CIPHER-wandb-key"):
        for algo in ("sha256", "sha1", "md5"):
            assert hashlib.new(algo, value.encode()).hexdigest()[:12] not in plan
    # the same ciphertexts: no change at all
    code, out = run_cli(["diff", str(old_path), str(same_path), "--json"], capsys)
    assert code == 0 and not json.loads(out)["changed"]


def test_the_secret_digest_depends_on_the_stack_salt():
    from pathways_gke.config.stack_file import secret_digest, stack_salt

    assert secret_digest("v1:X", "a") != secret_digest("v1:X", "b") != secret_digest("v1:Y", "b")
    assert secret_digest("v1:X", "a") == secret_digest("v1:X", "a")
    assert stack_salt({"encryptionsalt": "v1:s"}) == "v1:s" and stack_salt({"encryptedkey": "k"}) == "k"
    assert stack_salt({}) == ""
