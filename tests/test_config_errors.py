"""Bad input a user would really type: exit 2, each message names the path, the value and what is allowed."""

import copy

import pytest
import yaml

from pathways_gke.cli import main as cli_main
from pathways_gke.config import parse_stack
from pathways_gke.errors import ConfigError
from tests.conftest import ROOT

DEV = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())["config"]

P = "pathways-gke:"


def pool(**changes):
    def mutate(cfg):
        cfg[P + "tpuPools"][0].update(changes)
    return mutate


def workload(**changes):
    def mutate(cfg):
        cfg[P + "workloads"][0].update(changes)
    return mutate


def section(key, **changes):
    def mutate(cfg):
        cfg.setdefault(P + key, {}).update(changes)
    return mutate


def drop(*path):
    def mutate(cfg):
        target = cfg
        for part in path[:-1]:
            target = target[part]
        del target[path[-1]]
    return mutate


def top(key, value):
    def mutate(cfg):
        cfg[key] = value
    return mutate


# (id, mutation, expected path, substrings the message must contain)
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
     lambda c: (c[P + "tpuPools"][0].update(name="a-rather-long-group"), c[P + "cluster"].update(
         name="an-even-longer-cluster-nam"), c[P + "workloads"][0].update(tpuPool="a-rather-long-group")),
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
    ("secret-env-unknown-secret", workload(secretEnv={"HF_TOKEN": "hf"}), "workloads[0].secretEnv.HF_TOKEN",
     ["'hf'", "pathways-gke:secrets"]),
    ("duplicate-workload-names",
     lambda c: c[P + "workloads"].append(copy.deepcopy(c[P + "workloads"][0])), "workloads[0].name",
     ["more than one workload"]),
    ("cluster-missing", drop(P + "cluster"), "cluster", ["required"]),
    ("cluster-name-missing", drop(P + "cluster", "name"), "cluster.name", ["required"]),
    ("cluster-bad-location", section("cluster", location="useast5"), "cluster.location", ["'useast5'"]),
    ("cluster-bad-release-channel", section("cluster", releaseChannel="regular"), "cluster.releaseChannel",
     ["'regular'", "'REGULAR'"]),
    ("cluster-name-with-dots", section("cluster", name="pw.dev"), "cluster.name", ["'pw.dev'"]),
    ("cpu-min-above-max", section("cpuPool", minNodes=5, maxNodes=2), "cpuPool.minNodes",
     ["5", "larger than cpuPool.maxNodes"]),
    ("cpu-pool-tpu-machine", section("cpuPool", machineType="ct6e-standard-4t"), "cpuPool.machineType",
     ["TPU machine type"]),
    ("cpu-zone-outside-region", section("cpuPool", zone="europe-west4-a"), "cpuPool.zone",
     ["'europe-west4-a'", "us-east5"]),
    ("jobset-version-unpinned", section("jobset", version="0.10.1"), "jobset.version",
     ["'0.10.1'", "vMAJOR.MINOR.PATCH"]),
    ("jobset-version-latest", section("jobset", version="latest"), "jobset.version", ["'latest'"]),
    ("kueue-enabled-typo", section("kueue", enable=True), "kueue.enable", ["did you mean 'enabled'"]),
    ("unknown-top-level-key", top(P + "tpuPool", []), "pathways-gke:tpuPool", ["did you mean 'tpuPools'"]),
    ("missing-gcp-project", drop("gcp:project"), "gcp:project", ["must be set"]),
    ("system-namespace", top(P + "namespace", "kube-system"), "namespace", ["'kube-system'", "system namespace"]),
    ("namespace-uppercase", top(P + "namespace", "ML"), "namespace", ["'ML'"]),
    ("labels-uppercase", section("cluster", labels={"Team": "ml"}), "cluster.labels", ["'Team'"]),
]


def apply(mutation):
    cfg = copy.deepcopy(DEV)
    mutation(cfg)
    return cfg


@pytest.mark.parametrize("case_id,mutation,path,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_names_path_value_and_what_is_allowed(case_id, mutation, path, fragments):
    with pytest.raises(ConfigError) as caught:
        parse_stack(apply(mutation))
    matching = [p for p in caught.value.problems if p.path == path]
    assert matching, f"no problem at {path}; got: {caught.value.render()}"
    text = str(matching[0])
    for fragment in fragments:
        assert fragment in text, f"{fragment!r} missing from {text!r}"


def test_there_are_at_least_thirty_distinct_bad_inputs():
    assert len({c[0] for c in CASES}) >= 30


def test_all_problems_are_reported_at_once():
    cfg = apply(lambda c: (c[P + "tpuPools"][0].update(topology="3x3"), c[P + "workloads"][0].update(name="x" * 30),
                           c[P + "cpuPool"].update(minNodes=9)))
    with pytest.raises(ConfigError) as caught:
        parse_stack(cfg)
    assert {"tpuPools[0].topology", "workloads[0].name"} <= set(caught.value.paths)


@pytest.mark.parametrize("case_id,mutation,path,fragments",
                         [c for c in CASES if c[0] in ("unknown-type", "invalid-topology", "zero-slices",
                                                       "reservation-without-name", "spot-with-reservation",
                                                       "flex-start-fixed-size", "tpu-zone-outside-region",
                                                       "workload-name-23")],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_cli_exits_2_naming_the_path_with_no_traceback_and_nothing_registered(
        case_id, mutation, path, fragments, tmp_path, capsys, recording_runs):
    stack_file = tmp_path / "Pulumi.bad.yaml"
    stack_file.write_text(yaml.safe_dump({"config": apply(mutation)}))
    code = cli_main(["plan", "--config", str(stack_file), "--project-dir", str(ROOT)])
    err = capsys.readouterr().err
    assert code == 2
    assert path in err and "Traceback" not in err
    assert recording_runs == [], "the program ran although the config is invalid"
