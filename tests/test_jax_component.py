"""JaxWorkload under Pulumi's mock engine: children, options, outputs, validation before registration."""

from __future__ import annotations

import pulumi
import pytest
from pulumi.runtime import mocks as pmocks
from pulumi.runtime import rpc, settings

from pathways_gke.config.stack import parse_stack
from pathways_gke.tokens import JAX_WORKLOAD
from pathways_gke.workloads.jax import JaxWorkload, jax_args_from_stack
from pathways_gke.workloads.jax_jobset import build_jax_jobset
from pathways_gke.config.target import target_for
from tests.support.crd import jobset_schema_errors

IMAGE = "us-docker.pkg.dev/acme/train:2026-11"


class Echo(pulumi.runtime.Mocks):
    def new_resource(self, args):
        return f"{args.name}_id", dict(args.inputs)

    def call(self, args):
        return {}


class Recorder(pmocks.MockMonitor):
    def __init__(self, mocks):
        super().__init__(mocks)
        self.requests: dict[str, object] = {}
        self.outputs: dict[str, dict] = {}

    def RegisterResource(self, request):  # noqa: N802 (gRPC name)
        response = super().RegisterResource(request)
        self.requests[request.name] = request
        return response

    def RegisterResourceOutputs(self, request):  # noqa: N802
        self.outputs[request.urn] = rpc.deserialize_properties(request.outputs)
        return super().RegisterResourceOutputs(request)


@pytest.fixture
def monitor():
    settings.set_root_resource(None)  # set_mocks creates a root Stack only if none exists
    recorder = Recorder(Echo())
    pulumi.runtime.set_mocks(Echo(), project="pathways-gke", stack="test", preview=False, monitor=recorder)
    yield recorder
    settings.set_root_resource(None)


def inputs(request) -> dict:
    return rpc.deserialize_properties(request.object)


def stack(workloads, tpu_pools=(), **extra):
    return parse_stack({"gcp:project": "acme-ml-dev", "cluster": {"name": "pw", "location": "us-east5"},
                        "cpuPool": {"zone": "us-east5-a"}, "tpuPools": list(tpu_pools), "workloads": workloads,
                        **extra})


V5P = {"name": "main", "type": "v5p", "topology": "2x2x2", "slices": 2, "zone": "us-east5-a"}
TPU_WORKLOAD = {"name": "mst", "runtime": "jax", "tpuPool": "main", "image": IMAGE, "command": "python3 t.py",
                "maxRestarts": 2, "secretEnv": {"HF_TOKEN": "hf"}, "env": {"MODE": "train"}}


def test_children_options_and_outputs(monitor):
    pulumi.runtime.test(children_options_and_outputs)(monitor)
    # the component's register_outputs reaches the engine asynchronously: read it once every RPC is done
    [outputs] = [v for k, v in monitor.outputs.items() if k.endswith("::mst")]
    assert outputs["coordinatorAddress"] == "mst-workers-0-0.mst:8482"


def children_options_and_outputs(monitor):
    st = stack([TPU_WORKLOAD], [V5P], secrets={"hf": "<secret>"})
    workload = st.workloads[0]
    dep = pulumi.CustomResource("test:index:Ready", "ready", {})
    pool = pulumi.CustomResource("test:index:Pool", "pool", {})
    component = JaxWorkload("mst", jax_args_from_stack(st, workload, {"hf": pulumi.Output.secret("s3cr3t")}),
                            opts=pulumi.ResourceOptions(depends_on=[dep], replace_with=[pool]))

    def check(values):
        name, coordinator, processes, namespace = values
        assert (name, coordinator, processes, namespace) == ("mst", "mst-workers-0-0.mst:8482", 4, "default")
        requests = monitor.requests
        assert requests["mst"].type == JAX_WORKLOAD
        job = requests["mst-jobset"]
        assert job.type == "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
        assert job.parent == requests["mst"].parent or job.parent.endswith("::mst")
        assert list(job.replaceOnChanges) == ["spec"] and job.deleteBeforeReplace
        secret = requests["mst-env"]
        assert secret.type == "kubernetes:core/v1:Secret" and secret.parent.endswith("::mst")
        # the JobSet waits for the Secret and for what the component was told to wait for
        deps = set(job.dependencies)
        assert any(u.endswith("::mst-env") for u in deps) and any(u.endswith("::ready") for u in deps)
        assert any(u.endswith("::pool") for u in job.replace_with)
        # the registered JobSet is exactly the pure builder's, and it is valid
        registered = inputs(job)
        expected = build_jax_jobset(workload, target_for(st, workload), secret_name="mst-env")
        assert {k: registered[k] for k in ("apiVersion", "kind", "metadata", "spec")} == expected
        assert jobset_schema_errors(expected) == {"v0.8.2": [], "v0.12.0": []}
        # the secret value only travels as a Pulumi secret into the Secret, never into the JobSet
        assert "s3cr3t" not in repr(registered)
        secret_inputs = inputs(secret)
        assert secret_inputs["metadata"]["name"] == "mst-env"
        assert rpc.is_rpc_secret(secret_inputs["stringData"])  # the engine stores it encrypted
        assert rpc.unwrap_rpc_secret(secret_inputs["stringData"]) == {"HF_TOKEN": "s3cr3t"}

    return pulumi.Output.all(component.jobset_name, component.coordinator_address, component.processes,
                             component.namespace).apply(check)


@pulumi.runtime.test
def test_a_cpu_workload_has_no_secret_child(monitor):
    st = stack([{"name": "dev", "runtime": "jax", "image": IMAGE, "command": "python3 t.py",
                 "jax": {"processes": 4}}])
    component = JaxWorkload("dev", jax_args_from_stack(st, st.workloads[0]))

    def check(address):
        assert address == "dev-workers-0-0.dev:1234"
        assert "dev-env" not in monitor.requests
        spec = inputs(monitor.requests["dev-jobset"])["spec"]
        assert spec["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 4

    return component.coordinator_address.apply(check)


def test_cross_language_inputs_are_validated_with_paths_before_anything_is_registered(monitor):
    args = {
        "workload": {"name": "Bad_Name", "image": "python:latest", "command": "x", "max_restarts": 2.0,
                     "jax": {"processes": 0.0}, "secret_env": {"T": "missing"}, "colour": "red"},
        "target": {"namespace": "default", "cpu_pool": "cpu-np", "tpu_type": "v5p", "topology": "3x3x3",
                   "slices": 2.0, "tpu_group": "main"},
    }
    with pytest.raises(pulumi.InputPropertiesError) as caught:
        JaxWorkload("bad", args)
    paths = set(caught.value.paths)
    assert {"workload.colour", "workload.name", "workload.image", "workload.jax.processes",
            "target.topology"} <= paths
    assert {e["property_path"] for e in caught.value.errors} == paths  # one per input property, no other
    assert monitor.requests == {}  # not even the component


@pulumi.runtime.test
def test_floats_from_other_languages_are_accepted(monitor):
    args = {"workload": {"name": "ok", "image": IMAGE, "command": "x", "max_restarts": 2.0,
                         "jax": {"processes": 2.0, "slices": 1.0}},
            "target": {"namespace": "default", "cpu_pool": "cpu-np"}}
    component = JaxWorkload("ok", args)

    def check(processes):
        assert processes == 2
        spec = inputs(monitor.requests["ok-jobset"])["spec"]
        assert spec["failurePolicy"]["maxRestarts"] == 2

    return component.processes.apply(check)


def test_args_from_stack_round_trip_through_validation():
    from pathways_gke.workloads.jax_inputs import validate_jax_inputs

    st = stack([TPU_WORKLOAD, {"name": "dev", "runtime": "jax", "image": IMAGE, "command": ["python3", "t.py"],
                               "jax": {"processes": 4, "slices": 2, "cpu": "2"}}], [V5P],
               secrets={"hf": "x"}, kueue={"enabled": True})
    for workload in st.workloads:
        args = jax_args_from_stack(st, workload, {"hf": "value"})
        config, target = validate_jax_inputs(args["workload"], args["target"], tuple(args.get("secrets", {})))
        assert build_jax_jobset(config, target, secret_name="x") == \
            build_jax_jobset(workload, target_for(st, workload), secret_name="x")


def test_the_component_is_cross_language_clean():
    # Pulumi's component-provider analyzer infers the schema in-process (pulumi/provider/experimental/analyzer.py): it rejects
    # Union/Literal args and crashes on postponed annotations.
    from pulumi.provider.experimental.analyzer import Analyzer

    result = Analyzer("pathways-gke").analyze([JaxWorkload])
    component = result["component_definitions"]["JaxWorkload"]
    assert set(component.inputs) == {"workload", "target", "secrets"}
    assert set(component.outputs) == {"jobsetName", "namespace", "coordinatorAddress", "processes"}
    spec = result["type_definitions"]["JaxWorkloadSpec"].properties
    assert {"name", "image", "command", "tpuPool", "jax", "secretEnv", "maxRestarts"} <= set(spec)
    assert spec["tpuPool"].optional and not spec["image"].optional
