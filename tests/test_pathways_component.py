"""PathwaysWorkload under the offline engine: children, options, secrets, outputs, validation."""

from __future__ import annotations

import json

import pulumi
import pulumi_kubernetes as k8s
import pytest
from pulumi.runtime import rpc

from pathways_gke.apply_rules import JOBSET_REPLACE_ON_CHANGES
from pathways_gke.component import property_path
from pathways_gke.config import load_stack_file
from pathways_gke.errors import ConfigError
from pathways_gke.workloads.pathways import PathwaysWorkload, pathways_args_from_stack
from pathways_gke.render.pathways_jobset import build_pathways_jobset
from pathways_gke.config.placement import Placement

from .support.offline import Cloud, run
from .support.pathways_cases import target, workload
from .test_pathways_config import ROOT

WORKLOAD = {"name": "train", "image": "us-docker.pkg.dev/acme/train:v1", "command": "python3 train.py",
            "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}, "maxRestarts": 3.0}
ARGS = {"workload": WORKLOAD, "tpu_type": "v6e", "tpu_topology": "4x4", "slices": 4.0, "namespace": "ml",
        "tpu_group": "main", "queue_name": "pathways-queue"}


def test_children_names_parents_and_jobset_options():
    plan = run(lambda: PathwaysWorkload("train", ARGS))
    component = plan.named("train")
    assert component.type == "pathways-gke:index:PathwaysWorkload" and not component.custom
    jobset = plan.named("train-jobset")
    assert jobset.type == "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
    assert jobset.parent == component.urn
    assert jobset.options["replaceOnChanges"] == sorted(JOBSET_REPLACE_ON_CHANGES) and jobset.options["deleteBeforeReplace"] is True
    assert sorted(r.name for r in plan.resources) == ["train", "train-jobset"]  # no Secret without secretEnv


def test_jobset_inputs_are_exactly_the_builders_object():
    inputs = run(lambda: PathwaysWorkload("train", ARGS)).named("train-jobset").inputs
    expected = build_pathways_jobset(workload(**{k: v for k, v in WORKLOAD.items()}),
                                     target(queue_name="pathways-queue"))
    assert inputs["apiVersion"] == "jobset.x-k8s.io/v1alpha2" and inputs["kind"] == "JobSet"
    assert inputs["metadata"] == expected["metadata"]  # explicit namespace
    assert inputs["spec"] == expected["spec"]


def test_outputs():
    out = run(lambda: PathwaysWorkload("train", ARGS)).named("train").outputs
    assert out["jobsetName"] == "train" and out["namespace"] == "ml"
    assert out["headHost"] == "train-pathways-head-0-0.train"
    assert out["headDnsName"] == "train-pathways-head-0-0.train.ml.svc.cluster.local"
    assert out["jaxBackendTarget"] == "grpc://train-pathways-head-0-0.train:29000"
    assert out["portForwardCommand"].startswith("kubectl port-forward -n ml job/train-pathways-head-0 29000:29000")


def test_secret_env_goes_through_a_kubernetes_secret_never_plaintext():
    cloud = Cloud()
    plan = run(lambda: PathwaysWorkload("train", {**ARGS, "workload": {**WORKLOAD, "secretEnv": {"HF_TOKEN": "hf"}},
                                                  "secrets": {"hf": pulumi.Output.secret("s3cret-value")}}),
               mocks=cloud)
    secret, jobset = plan.named("train-env"), plan.named("train-jobset")
    assert secret.type == "kubernetes:core/v1:Secret" and secret.parent == plan.named("train").urn
    assert secret.inputs["metadata"] == {"name": "train-env", "namespace": "ml",
                                         "labels": {"pathways-gke/workload": "train"}}
    assert secret.inputs["stringData"] == "<secret>"  # the engine stores it encrypted ...
    assert rpc.unwrap_rpc_secret(cloud.sent["train-env"]["stringData"]) == {"HF_TOKEN": "s3cret-value"}  # ... here
    assert "s3cret-value" not in json.dumps(cloud.sent["train-jobset"])
    user_env = jobset.inputs["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["env"]
    assert user_env[-1] == {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "train-env", "key": "HF_TOKEN"}}}
    assert secret.urn in jobset.depends_on  # Secret exists before the pods start


def test_standalone_provider_depends_on_and_replace_with_reach_the_jobset():
    def program():
        provider = k8s.Provider("existing", kubeconfig="{}")
        pool = k8s.core.v1.ConfigMap("stand-in-pool", data={"a": "b"}, opts=pulumi.ResourceOptions(provider=provider))
        PathwaysWorkload("train", ARGS, pulumi.ResourceOptions(providers=[provider], depends_on=[pool],
                                                                 replace_with=[pool]))
    plan = run(program)
    jobset, pool = plan.named("train-jobset"), plan.named("stand-in-pool")
    assert jobset.options["provider"] == plan.named("existing").urn
    assert pool.urn in jobset.options["replaceWith"]
    assert pool.urn in jobset.depends_on


@pytest.mark.parametrize("args, path", [
    ({**ARGS, "workload": {**WORKLOAD, "name": "a" * 23}}, "workload.name"),
    ({**ARGS, "workload": {**WORKLOAD, "pathways": {"version": "v1", "gcsScratch": "gs://bkt/t",
                                                   "images": {"sidecar": "x.io/s:v1"}}}},
     "workload.pathways.images.sidecar"),
    ({**ARGS, "tpu_topology": "3x3"}, "tpu_topology"),
    ({**ARGS, "slices": 2.5}, "slices"),
    ({**ARGS, "workload": {**WORKLOAD, "mode": "colocated"}}, "workload.mode"),
    ({**ARGS, "workload": {**WORKLOAD, "secretEnv": {"T": "tok"}}}, "workload.secretEnv.T"),
    # the Pathways servers alone do not fit an n2-standard-16: the machine is at fault, whatever the workload asks
    ({**ARGS, "cpu_machine_type": "n2-standard-16"}, "cpu_machine_type"),
    ({**ARGS, "cpu_machine_type": "n2-standard-16", "workload": {**WORKLOAD, "mode": "headless", "image": None,
                                                                 "command": None}}, "cpu_machine_type"),
    # they fit an n2-highmem-32; a user container asking for 10 more CPUs does not
    ({**ARGS, "cpu_machine_type": "n2-highmem-32", "workload": {**WORKLOAD, "resources": {"requests": {"cpu": "10"}}}},
     "workload.resources"),
    # a TPU machine as the CPU pool's: refused, not a skipped head-fit check
    ({**ARGS, "cpu_machine_type": "ct6e-standard-4t"}, "cpu_machine_type"),
    ({**ARGS, "cpu_machine_type": "n2 standard 64"}, "cpu_machine_type"),
    ({**ARGS, "bogus": 1}, "bogus"),
    # the one placement model lets a JaxWorkload run on the CPU pool; a Pathways workload needs its TPU slices
    ({k: v for k, v in ARGS.items() if k not in ("tpu_type", "tpu_topology", "slices")}, "tpu_type"),
    ({k: v for k, v in ARGS.items() if k != "slices"}, "slices"),
])
def test_bad_args_raise_an_input_properties_error_naming_the_path_and_register_nothing(args, path):
    registered = []

    def program():
        try:
            PathwaysWorkload("train", args)
        except pulumi.InputPropertiesError as exc:
            registered.append(exc)
    assert run(program).resources == []
    error = registered[0]
    assert path in error.paths, error.render()
    assert property_path(path) in {e["property_path"] for e in error.errors}  # the input property, camelCase
    assert error.message == ConfigError(error.problems).render()  # the text the CLI prints


def test_shorthand_type_and_float_ints_are_accepted():
    args = {**ARGS, "tpu_type": "v6e-16", "slices": 4.0}
    del args["tpu_topology"]
    spec = run(lambda: PathwaysWorkload("train", args)).named("train-jobset").inputs["spec"]
    assert spec["replicatedJobs"][1]["replicas"] == 4
    assert "--instance_type=tpuv6e:4x4" in json.dumps(spec)


def test_args_from_the_prod_stack_render_the_same_jobset_as_the_builder():
    stack = load_stack_file(ROOT / "stacks" / "Pulumi.prod.yaml")
    w = stack.workloads[0]
    args = pathways_args_from_stack(stack, w)
    inputs = run(lambda: PathwaysWorkload("llm-pretrain", args)).named("llm-pretrain-jobset").inputs
    expected = build_pathways_jobset(w, Placement.of(stack, w))
    assert inputs["spec"] == expected["spec"]
    assert inputs["metadata"] == expected["metadata"]


@pytest.mark.slow
def test_component_schema_is_cross_language_clean():
    from pulumi.provider.experimental.analyzer import Analyzer  # noqa: PLC0415

    result = Analyzer("pathways-gke").analyze([PathwaysWorkload])
    component = result["component_definitions"]["PathwaysWorkload"]
    inputs = component.inputs
    assert {"workload", "tpuType", "tpuTopology", "slices", "namespace", "cpuPool", "tpuGroup", "capacity",
            "placementPolicy", "queueName", "secrets", "tpuMachineType", "cpuMachineType", "fallbackGroups",
            "dynamicSlice", "groupTaint"} == set(inputs)
    assert inputs["secrets"].optional and inputs["tpuTopology"].optional and not inputs["slices"].optional
    assert inputs["slices"].plain and inputs["tpuType"].plain and inputs["workload"].plain
    assert set(component.outputs) == {"jobsetName", "namespace", "headHost", "headDnsName", "jaxBackendTarget",
                                      "portForwardCommand"}
    assert inputs["workload"].description.startswith("The workload")
