"""Bad input a user would really type: exit 2, each message names the path, the value and what is allowed."""

import pytest
import yaml

from pathways_gke.cli import main as cli_main
from pathways_gke.config import parse_stack
from pathways_gke.errors import ConfigError
from tests.conftest import ROOT
from tests.support.stacks import ABSENT, P, merged, stack

# Each case is the dev stack with one thing a user got wrong:


def pool(**changes):
    """... in its pool group."""
    return merged("dev", tpuPools=[changes])


def workload(**changes):
    """... in its workload."""
    return merged("dev", workloads=[changes])


def section(key, **changes):
    """... in a section (ABSENT: a key left out)."""
    return merged("dev", **{key: changes})


def top(key, value):
    """... in a whole top-level key (None: the key left out)."""
    return stack("dev", **{key: value})


# (id, config, expected path, substrings the message must contain)
CASES = [
    ("unknown-type", pool(type="v9"), "tpuPools[0].type", ["'v9'", "allowed: v4, v5e, v5p, v6e, tpu7x"]),
    ("type-typo", pool(type="v6"), "tpuPools[0].type", ["'v6'", "allowed:"]),
    ("invalid-topology", pool(topology="3x3"), "tpuPools[0].topology", ["'3x3'", "not a v6e topology", "2x4"]),
    ("3d-topology-on-2d", pool(topology="2x2x2"), "tpuPools[0].topology", ["'2x2x2'", "allowed:"]),
    ("v5p-topology-not-listed", pool(type="v5p", topology="4x4x36"), "tpuPools[0].topology", ["'4x4x36'"]),
    ("zero-slices", pool(slices=0), "tpuPools[0].slices", ["0", "greater than or equal to 1"]),
    ("negative-slices", pool(slices=-2), "tpuPools[0].slices", ["-2"]),
    ("slices-word", pool(slices="two"), "tpuPools[0].slices", ["'two'", "integer"]),
    ("reservation-without-name", pool(capacity="reservation"), "tpuPools[0].reservation",
     ["required with capacity 'reservation'"]),
    ("spot-with-reservation", pool(capacity="spot", reservation="acme-res"), "tpuPools[0].reservation",
     ["'acme-res'", "capacity 'spot'"]),
    # found by tests/test_fuzz.py: a bad name in the string form raised a bare pydantic error (a traceback)
    ("reservation-name-invalid", pool(capacity="reservation", reservation="Acme_Res"), "tpuPools[0].reservation",
     ["'Acme_Res'", "is not a reservation name"]),
    ("reservation-mapping-name-invalid", pool(capacity="reservation", reservation={"name": "Acme_Res"}),
     "tpuPools[0].reservation.name", ["'Acme_Res'", "is not a reservation/block name"]),
    ("flex-start-fixed-size", pool(capacity="flex-start", autoscaling=False), "tpuPools[0].autoscaling",
     ["false", "capacity 'flex-start'", "no fixed size"]),
    ("flex-start-on-v4", pool(type="v4", topology="2x2x2", capacity="flex-start"), "tpuPools[0].capacity",
     ["not available for v4"]),
    ("unknown-capacity", pool(capacity="preemptible"), "tpuPools[0].capacity",
     ["'preemptible'", "'on-demand'", "'spot'", "'reservation'", "'flex-start'", "'queued'"]),
    ("queued-without-kueue", pool(capacity="queued"), "tpuPools[0].capacity", ["kueue.enabled: true"]),
    ("max-run-duration-not-flex", pool(maxRunDuration="24h"), "tpuPools[0].maxRunDuration",
     ["'24h'", "flex-start"]),
    ("max-run-duration-too-long", pool(capacity="flex-start", maxRunDuration="8d"), "tpuPools[0].maxRunDuration",
     ["'8d'", "7d"]),
    ("tpu-zone-outside-region", pool(zone="us-central1-a"), "tpuPools[0].zone",
     ["'us-central1-a'", "region us-east5"]),
    ("tpu-zone-is-a-region", pool(zone="us-east5"), "tpuPools[0].zone", ["'us-east5'", "is not a GCP zone"]),
    ("key-typo-in-pool", pool(topolgy="2x4"), "tpuPools[0].topolgy", ["did you mean 'topology'"]),
    ("shorthand-conflicts-topology", pool(type="v6e-16", topology="2x4"), "tpuPools[0].topology",
     ["'2x4'", "v6e-16", "4x4"]),
    ("machine-type-wrong-generation", pool(machineType="ct5lp-hightpu-4t"), "tpuPools[0].machineType",
     ["'ct5lp-hightpu-4t'", "not a v6e machine type"]),
    ("network-profile-on-v5p", pool(type="v5p", topology="2x2x2", networkProfile=True), "tpuPools[0].networkProfile",
     ["v6e and tpu7x only"]),
    ("group-name-uppercase", pool(name="Main"), "tpuPools[0].name", ["'Main'", "lower-case"]),
    ("pool-name-too-long-for-gke",
     merged("dev", tpuPools=[{"name": "a-rather-long-group"}], cluster={"name": "an-even-longer-cluster-nam"},
            workloads=[{"tpuPool": "a-rather-long-group"}]),
     "tpuPools[0].name", ["longer than GKE's 40 characters"]),
    ("workload-name-23", workload(name="a" * 23), "workloads[0].name", ["23 characters", "at most 22"]),
    ("workload-name-underscore", workload(name="my_train"), "workloads[0].name", ["'my_train'", "DNS-1035"]),
    ("workload-unknown-pool", workload(tpuPool="mian"), "workloads[0].tpuPool", ["'mian'", "allowed: main"]),
    ("workload-latest-image", workload(image="us-docker.pkg.dev/acme/train:latest"), "workloads[0].image",
     ["not pinned"]),
    ("workload-untagged-image", workload(image="us-docker.pkg.dev/acme/train"), "workloads[0].image",
     ["not pinned"]),
    ("workload-bad-runtime", workload(runtime="tensorflow"), "workloads[0].runtime",
     ["'tensorflow'", "'pathways'", "'jax'"]),
    ("workload-bad-mode", workload(mode="colocate"), "workloads[0].mode", ["'colocate'", "'colocated'"]),
    ("pathways-version-latest", workload(pathways={"version": "latest"}), "workloads[0].pathways.version",
     ["'latest'", "refused"]),
    ("gcs-scratch-not-gs", workload(pathways={"version": "jax-0.9.2", "gcsScratch": "/tmp/x"}),
     "workloads[0].pathways.gcsScratch", ["'/tmp/x'", "gs://"]),
    ("env-name-invalid", workload(env={"1BAD": "x"}), "workloads[0].env", ["'1BAD'"]),
    # found while writing tests/test_fuzz.py: any string was accepted, and the pods of the JobSet were refused
    ("service-account-is-an-email", workload(serviceAccount="trainer@acme-ml-dev.iam.gserviceaccount.com"),
     "workloads[0].serviceAccount", ["'trainer@acme-ml-dev.iam.gserviceaccount.com'", "GCP service-account email",
                                     "Kubernetes service account"]),
    ("service-account-not-a-name", workload(serviceAccount="ML Trainer"), "workloads[0].serviceAccount",
     ["'ML Trainer'", "not a Kubernetes service account name"]),
    ("secret-env-unknown-secret", workload(secretEnv={"HF_TOKEN": "hf"}), "workloads[0].secretEnv.HF_TOKEN",
     ["value not shown", "pathways-gke:secrets"]),
    ("duplicate-workload-names", top(P + "workloads", stack("dev")[P + "workloads"] * 2), "workloads[0].name",
     ["more than one workload"]),
    ("cluster-missing", top(P + "cluster", None), "cluster", ["required"]),
    ("cluster-name-missing", section("cluster", name=ABSENT), "cluster.name", ["required"]),
    ("cluster-bad-location", section("cluster", location="useast5"), "cluster.location", ["'useast5'"]),
    ("cluster-bad-release-channel", section("cluster", releaseChannel="regular"), "cluster.releaseChannel",
     ["'regular'", "'REGULAR'"]),
    ("cluster-name-with-dots", section("cluster", name="pw.dev"), "cluster.name", ["'pw.dev'"]),
    ("cpu-min-above-max", section("cpuPool", minNodes=5, maxNodes=2), "cpuPool.minNodes",
     ["5", "larger than cpuPool.maxNodes"]),
    ("cpu-pool-tpu-machine", section("cpuPool", machineType="ct6e-standard-4t"), "cpuPool.machineType",
     ["TPU machine type"]),
    # the Pathways servers alone do not fit the head's machine: the machine is named, in every mode
    ("cpu-pool-too-small-for-the-servers", section("cpuPool", machineType="n2-standard-16"), "cpuPool.machineType",
     ["'n2-standard-16'", "Pathways servers alone"]),
    ("cpu-pool-too-small-headless",
     merged("dev", cpuPool={"machineType": "n2-standard-16"},
            workloads=[{"mode": "headless", "image": ABSENT, "command": ABSENT}]),
     "cpuPool.machineType", ["'n2-standard-16'", "Pathways servers alone"]),
    ("cpu-zone-outside-region", section("cpuPool", zone="europe-west4-a"), "cpuPool.zone",
     ["'europe-west4-a'", "us-east5"]),
    ("jobset-version-unpinned", section("jobset", version="0.10.1"), "jobset.version",
     ["'0.10.1'", "vMAJOR.MINOR.PATCH"]),
    ("jobset-version-latest", section("jobset", version="latest"), "jobset.version", ["'latest'"]),
    ("kueue-enabled-typo", section("kueue", enable=True), "kueue.enable", ["did you mean 'enabled'"]),
    ("unknown-top-level-key", top(P + "tpuPool", []), "pathways-gke:tpuPool", ["did you mean 'tpuPools'"]),
    ("missing-gcp-project", top("gcp:project", None), "gcp:project", ["must be set"]),
    ("system-namespace", top(P + "namespace", "kube-system"), "namespace", ["'kube-system'", "system namespace"]),
    ("namespace-uppercase", top(P + "namespace", "ML"), "namespace", ["'ML'"]),
    ("labels-uppercase", section("cluster", labels={"Team": "ml"}), "cluster.labels", ["'Team'"]),
    # found by tests/test_fuzz.py: node labels were not checked, so GKE refused them at `pulumi up`
    ("cpu-node-label-value", section("cpuPool", labels={"team": "ML Platform"}), "cpuPool.labels",
     ["'ML Platform'", "not a Kubernetes label value"]),
    ("tpu-node-label-key", pool(labels={"cost center": "x"}), "tpuPools[0].labels",
     ["'cost center'", "not a Kubernetes label key"]),
    ("tpu-node-label-too-long", pool(labels={"team": "a" * 64}), "tpuPools[0].labels", ["at most 63"]),
]


@pytest.mark.parametrize("case_id,config,path,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_names_path_value_and_what_is_allowed(case_id, config, path, fragments):
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    matching = [p for p in caught.value.problems if p.path == path]
    assert matching, f"no problem at {path}; got: {caught.value.render()}"
    text = str(matching[0])
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} missing from {text!r}"


def test_there_are_at_least_thirty_distinct_bad_inputs():
    assert len({c[0] for c in CASES}) >= 30


def test_node_labels_follow_kubernetes_rules_not_gce_ones():
    labels = {"example.com/part-of": "ML", "Team": "Research.v2", "empty": ""}
    config = parse_stack(merged("dev", cpuPool={"labels": labels}, tpuPools=[{"labels": labels}]))
    assert config.cpu_pool.labels == config.tpu_pools[0].labels == labels


@pytest.mark.parametrize("config,paths", [
    (pool(capacity="reservation", reservation={"name": "Acme_Res"}), ["tpuPools[0].reservation.name"]),
    (workload(command=["python3", 3]), ["workloads[0].command[1]"]),
    (workload(command=5), ["workloads[0].command", "workloads[0].command"]),  # neither a string nor a list
], ids=["reservation-mapping", "command-list", "command-number"])
def test_a_field_of_two_forms_is_reported_for_the_form_the_user_wrote(config, paths):
    # found by tests/test_fuzz.py: paths named pydantic's union member ("reservation.constrained-str"), and
    # the mapping form also got "should be a valid string" from the string form
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    assert caught.value.paths == paths


def test_all_problems_are_reported_at_once():
    config = merged("dev", tpuPools=[{"topology": "3x3"}], workloads=[{"name": "x" * 30}], cpuPool={"minNodes": 9})
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    assert {"tpuPools[0].topology", "workloads[0].name"} <= set(caught.value.paths)


@pytest.mark.parametrize("case_id,config,path,fragments",
                         [c for c in CASES if c[0] in ("unknown-type", "invalid-topology", "zero-slices",
                                                       "reservation-without-name", "spot-with-reservation",
                                                       "reservation-name-invalid",
                                                       "flex-start-fixed-size", "tpu-zone-outside-region",
                                                       "workload-name-23")],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_cli_exits_2_naming_the_path_with_no_traceback_and_nothing_registered(
        case_id, config, path, fragments, tmp_path, capsys, recording_runs):
    stack_file = tmp_path / "Pulumi.bad.yaml"
    stack_file.write_text(yaml.safe_dump({"config": config}))
    code = cli_main(["plan", "--config", str(stack_file), "--project-dir", str(ROOT)])
    err = capsys.readouterr().err
    assert code == 2
    assert path in err and "Traceback" not in err
    assert recording_runs == [], "the program ran although the config is invalid"


@pytest.mark.parametrize("text,message", [
    ("config:\n  gcp:project: acme-ml-dev\n  pathways-gke:cluster:\n    name: pw\n\tlocation: us-east5\n",
     "while scanning for the next token: found character '\\t' that cannot start any token at line 5, column 1"),
    ('config:\n  gcp:project: "acme-ml-dev\n',
     "while scanning a quoted scalar at line 2, column 16: found unexpected end of stream at line 3, column 1"),
    # PyYAML keeps the last of two equal keys without a word; the first one was what the user looked at
    ("config:\n  gcp:project: acme-ml-dev\n  pathways-gke:cpuPool:\n    zone: us-east5-a\n    zone: us-west4-a\n",
     "key 'zone' is given twice in one mapping, at line 4 and line 5; keep one"),
], ids=["tab-indent", "unclosed-quote", "duplicate-key"])
def test_a_yaml_syntax_error_is_one_line_naming_the_file_and_position(text, message, tmp_path, capsys,
                                                                     recording_runs):
    # PyYAML's own text spans several lines and quotes the source; the CLI prints one problem per line
    stack_file = tmp_path / "Pulumi.bad.yaml"
    stack_file.write_text(text)
    assert cli_main(["plan", "--config", str(stack_file), "--project-dir", str(ROOT)]) == 2
    assert capsys.readouterr().err == f"invalid config (1 problem):\n  - {stack_file}: is not valid YAML: {message}\n"
    assert recording_runs == []
