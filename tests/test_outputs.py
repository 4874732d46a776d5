"""Inputs that only flow into properties accept Outputs; graph-shaping ones refuse them, saying why.

A platform program creates its VPC (or builds its image) next to the cluster and passes the Outputs in.
While unknown, the config is validated with stand-ins; once known, each value is validated by the same models
(an invalid one fails naming its config path, never echoing the value) and lands in the children's inputs.
"""

import pulumi
import pulumi_gcp as gcp
import pytest

from pathways_gke import PathwaysCluster, PathwaysWorkload
from pathways_gke.config.deferrable import STACK_FIELDS, TOKEN, deferrable_kind
from pathways_gke.errors import ConfigError
from pathways_gke.plan.engine import COMPUTED
from tests.support.args_cases import wire_inputs
from tests.support.examples import construct_plan
from tests.support.offline import run
from tests.support.stacks import shipped
from tests.test_two_clusters import cluster_args

CLUSTER = "pathways-gke:index:PathwaysCluster"
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"


def plan_with(edit, name="east"):
    def program():
        args = cluster_args("pw-east", "us-east5", "us-east5-b")
        edit(args)
        PathwaysCluster(name, args)

    return run(program, stack="dev", project="platform")


def known(value):
    return pulumi.Output.from_input(value)


def containers(plan):
    (jobset,) = plan.of_type(JOBSET)
    return [c for rj in jobset.inputs["spec"]["replicatedJobs"] for c in rj["template"]["spec"]["template"]["spec"]
            ["containers"]]


def no_stand_in_anywhere(plan):
    assert not TOKEN.search(plan.dumps())


@pytest.mark.slow
def test_a_vpc_created_in_the_same_program_is_the_clusters_network():
    def edit(args):
        vpc = gcp.compute.Network("vpc", auto_create_subnetworks=False, project="acme-ml-dev")
        subnet = gcp.compute.Subnetwork("subnet", network=vpc.self_link, ip_cidr_range="10.8.0.0/16",
                                        region="us-east5", project="acme-ml-dev")
        args["cluster"]["network"] = vpc.self_link
        args["cluster"]["subnetwork"] = subnet.self_link

    plan = plan_with(edit)
    cluster = plan.named("east-cluster")
    # unknown until the VPC exists, exactly as a first `pulumi preview` shows it
    assert cluster.inputs["network"] == COMPUTED and cluster.inputs["subnetwork"] == COMPUTED
    assert plan.named("vpc").urn in cluster.depends_on
    no_stand_in_anywhere(plan)


def test_known_outputs_land_in_every_property_they_feed():
    def edit(args):
        args["cluster"]["labels"] = {"team": known("ml")}
        args["cluster"]["node_service_account"] = {"email": known("gke-nodes@acme-ml-dev.iam.gserviceaccount.com")}
        args["tpu_pools"][0]["labels"] = {"tier": known("spot")}
        workload = args["workloads"][0]
        workload["image"] = known("us-docker.pkg.dev/acme/train:build-42")
        workload["env"] = {"RUN": known("r1")}
        workload["pathways"]["images"] = {"server": known("us-docker.pkg.dev/acme/pathways/server:build-7")}

    plan = plan_with(edit)
    assert plan.named("east-cluster").inputs["resourceLabels"]["team"] == "ml"
    pool = plan.named("east-main-0")
    assert pool.inputs["nodeConfig"]["serviceAccount"] == "gke-nodes@acme-ml-dev.iam.gserviceaccount.com"
    assert pool.inputs["nodeConfig"]["labels"]["tier"] == "spot"
    user = next(c for c in containers(plan) if c["image"] == "us-docker.pkg.dev/acme/train:build-42")
    assert {"name": "RUN", "value": "r1"} in user["env"]
    assert any(c["image"] == "us-docker.pkg.dev/acme/pathways/server:build-7" for c in containers(plan))
    no_stand_in_anywhere(plan)


@pytest.mark.slow
def test_an_invalid_output_value_fails_when_known_naming_the_path_without_echoing_it():
    def edit(args):
        args["workloads"][0]["image"] = pulumi.Output.secret("us-docker.pkg.dev/acme/train:latest")

    with pytest.raises(ConfigError) as caught:
        plan_with(edit)
    text = str(caught.value)
    assert "workloads[0].image" in text and "pinned" in text
    assert "acme/train:latest" not in text


@pytest.mark.parametrize("path,edit", [
    ("tpuPools[0].slices", lambda a: a["tpu_pools"][0].update(slices=known(2))),
    ("cluster.name", lambda a: a["cluster"].update(name=known("pw-east"))),
    ("tpuPools[0].topology", lambda a: a["tpu_pools"][0].update(topology=known("2x4"))),
    ("workloads[0].name", lambda a: a["workloads"][0].update(name=known("train"))),
    # the bucket that gets a grant and the ServiceAccount the stack creates are named by these
    ("workloads[0].pathways.gcsScratch", lambda a: a["workloads"][0]["pathways"].update(gcs_scratch=known("gs://b/t"))),
    ("workloads[0].serviceAccount", lambda a: a["workloads"][0].update(service_account=known("trainer"))),
])
def test_graph_shaping_values_must_be_plain_and_the_error_says_why(path, edit):
    with pytest.raises(pulumi.InputPropertiesError) as caught:  # refused by the component, before registering
        plan_with(edit)
    (problem,) = caught.value.problems
    assert problem.path == path and "shapes the resource graph" in problem.message
    assert [e["property_path"] for e in caught.value.errors] == [path]
    assert "cluster.network" in problem.message  # and says which fields do accept Outputs


def test_the_deferrable_fields_are_property_only():
    for path in ("cluster.network", "workloads[3].image", "tpuPools[0].labels.team", "workloads[0].env.X"):
        assert deferrable_kind(path) is not None
    for path in ("cluster.name", "tpuPools[0].slices", "tpuPools[0].type", "workloads[0].tpuPool", "namespace",
                 "cluster.labels", "tpuPools[0].reservation.name", "workloads[0].serviceAccount",
                 "workloads[0].pathways.gcsScratch"):
        assert deferrable_kind(path) is None
    assert len(STACK_FIELDS) >= 10


@pytest.mark.slow
def test_through_the_component_provider_a_vpc_self_link_is_the_network():
    """A TypeScript/Go/YAML program passing `vpc.selfLink`: the engine hands Construct an Output."""
    def inputs():
        values = wire_inputs(shipped("dev"))
        vpc = gcp.compute.Network("vpc", auto_create_subnetworks=False, project="acme-ml-dev")
        values["cluster"]["network"] = vpc.self_link
        return values

    plan, _ = construct_plan(CLUSTER, "pw-dev", inputs, stack="dev", project="pathways-gke")
    cluster = plan.named("pw-dev-cluster")
    assert cluster.inputs["network"] == COMPUTED and plan.named("vpc").urn in cluster.depends_on
    no_stand_in_anywhere(plan)


def test_a_standalone_workload_takes_an_image_built_in_the_program():
    from tests.test_provider import workload_wire_inputs

    def program():
        wire = workload_wire_inputs()
        args = {"workload": {**wire["workload"], "image": known("us-docker.pkg.dev/acme/train/trainer:build-7")},
                "tpu_type": "v6e", "tpu_topology": "4x4", "slices": 2, "namespace": "ml", "cpu_pool": "cpu-np",
                "tpu_group": "main", "capacity": "spot"}
        PathwaysWorkload("train", args)

    plan = run(program, stack="dev", project="ml")
    assert any(c["image"] == "us-docker.pkg.dev/acme/train/trainer:build-7" for c in containers(plan))
    no_stand_in_anywhere(plan)


def test_a_standalone_jax_workload_takes_an_image_and_env_from_outputs():
    from pathways_gke import JaxWorkload

    def program():
        JaxWorkload("eval", {
            "workload": {"name": "eval", "image": known("us-docker.pkg.dev/acme/eval/eval:build-3"),
                         "command": "python3 eval.py", "jax": {"processes": 2}, "env": {"RUN": known("r7")}},
            "namespace": "ml", "cpu_pool": "cpu-np",
        })

    plan = run(program, stack="dev", project="ml")
    (container,) = {c["image"]: c for c in containers(plan)}.values()
    assert container["image"] == "us-docker.pkg.dev/acme/eval/eval:build-3"
    assert {"name": "RUN", "value": "r7"} in container["env"]
    no_stand_in_anywhere(plan)


def test_a_workload_output_where_the_jobset_shape_is_decided_is_refused():
    from tests.test_provider import workload_wire_inputs

    wire = workload_wire_inputs()
    args = {"workload": {**wire["workload"], "name": known("train")}, "tpu_type": "v6e", "tpu_topology": "4x4",
            "slices": 2}
    with pytest.raises(pulumi.InputPropertiesError, match="workload.name: must be a plain value"):
        run(lambda: PathwaysWorkload("train", args), stack="dev", project="ml")
