"""JaxWorkload under the offline engine: children, options, outputs, validation before registration."""

from __future__ import annotations

import pulumi
import pytest
from pulumi.runtime import rpc

from pathways_gke.apply_rules import JOBSET_REPLACE_ON_CHANGES
from pathways_gke.component import property_path
from pathways_gke.tokens import JAX_WORKLOAD
from pathways_gke.workloads.jax import JaxWorkload, jax_args_from_stack
from pathways_gke.render.jax_jobset import build_jax_jobset
from pathways_gke.config.placement import Placement
from tests.support.crd import jobset_schema_errors
from tests.support.offline import Cloud, run
from tests.support.stacks import parsed

IMAGE = "us-docker.pkg.dev/acme/train:2026-11"
PLACEMENT_INPUTS = {"tpuType", "tpuTopology", "slices", "tpuMachineType", "namespace", "cpuPool", "cpuMachineType",
                    "tpuGroup", "groupTaint", "capacity", "placementPolicy", "queueName", "fallbackGroups",
                    "dynamicSlice"}


V5P = {"name": "main", "type": "v5p", "topology": "2x2x2", "slices": 2, "zone": "us-east5-a"}
TPU_WORKLOAD = {"name": "mst", "runtime": "jax", "tpuPool": "main", "image": IMAGE, "command": "python3 t.py",
                "maxRestarts": 2, "secretEnv": {"HF_TOKEN": "hf"}, "env": {"MODE": "train"}}


@pytest.mark.slow
def test_children_options_and_outputs():
    st = parsed(tpuPools=[V5P], secrets={"hf": "<secret>"}, workloads=[TPU_WORKLOAD])
    workload = st.workloads[0]

    def program():
        ready = pulumi.CustomResource("test:index:Ready", "ready", {})
        pool = pulumi.CustomResource("test:index:Pool", "pool", {})
        JaxWorkload("mst", jax_args_from_stack(st, workload, {"hf": pulumi.Output.secret("s3cr3t")}),
                    opts=pulumi.ResourceOptions(depends_on=[ready], replace_with=[pool]))

    cloud = Cloud()
    plan = run(program, mocks=cloud)
    component, job, secret = plan.named("mst"), plan.named("mst-jobset"), plan.named("mst-env")
    assert component.type == JAX_WORKLOAD
    assert "replaceWith" not in component.options  # a component is never replaced: its JobSet is
    assert component.outputs == {"jobsetName": "mst", "coordinatorAddress": "mst-workers-0-0.mst:8482",
                                 "processes": 4, "namespace": "default"}
    assert job.type == "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet" and job.parent == component.urn
    assert job.options["replaceOnChanges"] == sorted(JOBSET_REPLACE_ON_CHANGES) and job.options["deleteBeforeReplace"]
    assert secret.type == "kubernetes:core/v1:Secret" and secret.parent == component.urn
    # the JobSet waits for the Secret and for what the component was told to wait for
    assert {secret.urn, plan.named("ready").urn} <= set(job.depends_on)
    assert job.options["replaceWith"] == [plan.named("pool").urn]
    # the registered JobSet is exactly the pure builder's, and it is valid
    expected = build_jax_jobset(workload, Placement.of(st, workload), secret_name="mst-env")
    assert {k: job.inputs[k] for k in ("apiVersion", "kind", "metadata", "spec")} == expected
    assert jobset_schema_errors(expected) == {"v0.8.2": [], "v0.12.0": []}
    # the secret value only travels as a Pulumi secret into the Secret, never into the JobSet
    assert "s3cr3t" not in repr(cloud.sent["mst-jobset"])
    assert secret.inputs["metadata"]["name"] == "mst-env"
    assert secret.inputs["stringData"] == "<secret>"  # the engine stores it encrypted
    assert rpc.unwrap_rpc_secret(cloud.sent["mst-env"]["stringData"]) == {"HF_TOKEN": "s3cr3t"}


def test_a_cpu_workload_has_no_secret_child():
    st = parsed(workloads=[{"name": "dev", "runtime": "jax", "image": IMAGE, "command": "python3 t.py",
                            "jax": {"processes": 4}}])
    plan = run(lambda: JaxWorkload("dev", jax_args_from_stack(st, st.workloads[0])))
    assert plan.named("dev").outputs["coordinatorAddress"] == "dev-workers-0-0.dev:1234"
    assert sorted(r.name for r in plan.resources) == ["dev", "dev-jobset"]
    spec = plan.named("dev-jobset").inputs["spec"]
    assert spec["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 4


def test_cross_language_inputs_are_validated_with_paths_before_anything_is_registered():
    args = {
        "workload": {"name": "Bad_Name", "image": "python:latest", "command": "x", "max_restarts": 2.0,
                     "jax": {"processes": 0.0}, "secret_env": {"T": "missing"}, "colour": "red"},
        "namespace": "default", "cpu_pool": "cpu-np", "tpu_type": "v5p", "tpu_topology": "3x3x3", "slices": 2.0,
        "tpu_group": "main",
    }
    refusals = []

    def program():
        with pytest.raises(pulumi.InputPropertiesError) as caught:
            JaxWorkload("bad", args)
        refusals.append(caught.value)

    assert run(program).resources == []  # not even the component
    paths = set(refusals[0].paths)
    assert {"workload.colour", "workload.name", "workload.image", "workload.jax.processes",
            "tpu_topology"} <= paths
    # one per input property (camelCase, as other languages name it), no other
    assert {e["property_path"] for e in refusals[0].errors} == {property_path(p) for p in paths}


def test_placement_args_are_checked_by_the_one_model_and_named_by_their_arg_names():
    workload = {"name": "ok", "image": IMAGE, "command": "x"}
    cases = {
        # TPU facts without a TPU: the CPU pool has no topology
        "tpu_topology": {"tpu_topology": "2x2x2"},
        "slices": {"tpu_type": "v5p", "tpu_topology": "2x2x2", "tpu_group": "main"},
        "tpu_group": {"tpu_type": "v5p", "tpu_topology": "2x2x2", "slices": 1},  # the JobSet selects the group
        "capacity": {"capacity": "cheap"},
    }
    for path, placement in cases.items():
        def program(placement=placement, path=path):
            with pytest.raises(pulumi.InputPropertiesError) as caught:
                JaxWorkload("bad", {"workload": workload, **placement})
            assert set(caught.value.paths) == {path}, caught.value

        assert run(program).resources == []
    assert set(Placement.model_fields) == {"tpu_type", "tpu_topology", "slices", "tpu_machine_type", "namespace",
                                           "cpu_pool", "cpu_machine_type", "tpu_group", "group_taint", "capacity",
                                           "placement_policy", "queue_name", "fallback_groups", "dynamic_slice"}


def test_floats_from_other_languages_are_accepted():
    args = {"workload": {"name": "ok", "image": IMAGE, "command": "x", "max_restarts": 2.0,
                         "jax": {"processes": 2.0, "slices": 1.0}},
            "namespace": "default", "cpu_pool": "cpu-np"}
    plan = run(lambda: JaxWorkload("ok", args))
    assert plan.named("ok").outputs["processes"] == 2
    assert plan.named("ok-jobset").inputs["spec"]["failurePolicy"]["maxRestarts"] == 2


def test_args_from_stack_round_trip_through_validation():
    from pathways_gke.config.jax_args import validate_jax_args

    st = parsed(tpuPools=[V5P], secrets={"hf": "x"}, kueue={"enabled": True}, workloads=[
        TPU_WORKLOAD, {"name": "dev", "runtime": "jax", "image": IMAGE, "command": ["python3", "t.py"],
                       "jax": {"processes": 4, "slices": 2, "cpu": "2"}}])
    for workload in st.workloads:
        args = jax_args_from_stack(st, workload, {"hf": "value"})
        config, target = validate_jax_args(args)
        assert build_jax_jobset(config, target, secret_name="x") == \
            build_jax_jobset(workload, Placement.of(st, workload), secret_name="x")


def test_the_component_is_cross_language_clean():
    # Pulumi's component-provider analyzer infers the schema in-process (pulumi/provider/experimental/analyzer.py): it rejects
    # Union/Literal args and crashes on postponed annotations.
    from pulumi.provider.experimental.analyzer import Analyzer

    result = Analyzer("pathways-gke").analyze([JaxWorkload])
    component = result["component_definitions"]["JaxWorkload"]
    assert set(component.inputs) == {"workload", "secrets", *PLACEMENT_INPUTS}
    assert set(component.outputs) == {"jobsetName", "namespace", "coordinatorAddress", "processes"}
    spec = result["type_definitions"]["JaxWorkloadSpec"].properties
    assert {"name", "image", "command", "tpuPool", "jax", "secretEnv", "maxRestarts"} <= set(spec)
    assert spec["tpuPool"].optional and not spec["image"].optional


def test_cpu_machine_type_sizes_the_cpu_processes_and_must_be_a_cpu_machine():
    """cpu_machine_type is honoured: each process on the CPU pool must fit one of its nodes (GKE allocatable), and a
    TPU machine or a malformed name is refused rather than silently skipping the check."""
    workload = {"name": "cpujob", "image": IMAGE, "command": "x", "jax": {"processes": 2, "cpu": "8", "memory": "8Gi"}}
    cases = {"n2-standard-4": "workload.jax", "ct6e-standard-4t": "cpu_machine_type", "n2 standard": "cpu_machine_type"}
    for machine, path in cases.items():
        def program(machine=machine, path=path):
            with pytest.raises(pulumi.InputPropertiesError) as caught:
                JaxWorkload("bad", {"workload": workload, "cpu_machine_type": machine})
            assert set(caught.value.paths) == {path}, caught.value
            if path == "workload.jax":
                assert "n2-standard-4" in str(caught.value) and "allocatable" in str(caught.value)

        assert run(program).resources == []
    fits = run(lambda: JaxWorkload("ok", {"workload": workload, "cpu_machine_type": "n2-standard-16"}))
    assert fits.named("ok-jobset") is not None


def test_a_stack_jax_process_larger_than_a_cpu_pool_node_is_refused_at_its_jax_block():
    from pathways_gke.errors import ConfigError

    cpu_job = {"name": "cpujob", "runtime": "jax", "image": IMAGE, "command": "x",
               "jax": {"processes": 2, "cpu": "70", "memory": "8Gi"}}
    with pytest.raises(ConfigError) as caught:
        parsed("dev", workloads=[cpu_job])  # the dev CPU pool: n2-standard-64
    assert "workloads[0].jax" in caught.value.paths
