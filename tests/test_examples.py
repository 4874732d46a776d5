"""Every example under examples/ plans offline and does what its README promises."""

import re

import pytest
import yaml

from pathways_gke.provider import package_schema
from tests.support.examples import EXAMPLES, as_wire, construct_plan, example_config, plan_example
from tests.conftest import ROOT
from tests.support.offline import Cloud
from tests.support.pulumi_schema import schema_errors

NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = "gcp:container/cluster:Cluster"


# --- examples/platform-python: own providers, adopted cluster --------------------------------------


@pytest.fixture(scope="module")
def platform():
    return plan_example("platform-python", "shared")


def test_platform_adopts_the_cluster_instead_of_creating_one(platform):
    plan = platform
    created = [c.name for c in plan.of_type(CLUSTER) if not c.read]
    assert created == []
    adopted = plan.named("ml-shared-cluster")
    assert adopted.read and adopted.options["id"] == "projects/acme-ml-shared/locations/us-east5/clusters/ml-shared"
    pools = plan.of_type(NODE_POOL)
    assert [p.name for p in pools] == ["ml-shared-cpu", "ml-shared-v5p-0", "ml-shared-v5p-1"]
    assert {p.inputs["cluster"] for p in pools} == {"ml-shared"}
    assert [p.inputs["name"] for p in pools] == ["cpu-np", "ml-shared-v5p-0", "ml-shared-v5p-1"]


def test_platform_children_use_the_platforms_providers(platform):
    plan = platform
    gcp_provider = plan.named("platform-gcp").urn
    k8s_provider = plan.named("platform-k8s").urn
    gcp_children = [r for r in plan.resources if r.custom and r.type.startswith("gcp:")]
    assert gcp_children and {r.options["provider"] for r in gcp_children} == {gcp_provider}
    k8s_children = [r for r in plan.resources if r.custom and r.type.startswith("kubernetes:")]
    assert k8s_children and {r.options["provider"] for r in k8s_children} == {k8s_provider}
    # the component made no Kubernetes provider of its own
    assert [r.name for r in plan.of_type("pulumi:providers:kubernetes")] == ["platform-k8s"]
    # reading the adopted cluster goes through the platform's GCP identity too
    reads = [r for r in plan.of_type(CLUSTER) if r.read]
    assert {r.name for r in reads} == {"ml-shared-cluster", "shared-cluster"}
    assert {r.options["provider"] for r in reads} == {gcp_provider}


def test_platform_component_registers_the_providers_it_was_given(platform):
    plan = platform
    component = plan.named("ml-shared")
    assert component.type == "pathways-gke:index:PathwaysCluster"
    assert component.outputs["cpuPoolName"] == "cpu-np"
    assert component.outputs["tpuPoolNames"] == {"v5p": ["ml-shared-v5p-0", "ml-shared-v5p-1"]}


# --- examples/yaml: Pulumi YAML through the component provider ---------------------------------------

YAML_DIR = EXAMPLES / "yaml"
INTERPOLATION = re.compile(r"^\$\{([A-Za-z][A-Za-z0-9]*)\}$")


@pytest.fixture(scope="module")
def yaml_program():
    return yaml.safe_load((YAML_DIR / "Pulumi.yaml").read_text())


@pytest.fixture(scope="module")
def yaml_stack():
    return example_config("yaml", "dev")


def ours(program):
    return {name: r for name, r in program["resources"].items() if r["type"].startswith("pathways-gke:")}


def test_yaml_program_uses_the_package_from_this_repository(yaml_program):
    assert yaml_program["runtime"] == "yaml"
    source = YAML_DIR / yaml_program["packages"]["pathways-gke"]
    assert (source / "PulumiPlugin.yaml").exists() and (source / "__main__.py").exists()
    assert ours(yaml_program), "the example uses no pathways-gke component"


@pytest.mark.slow
def test_yaml_properties_conform_to_the_schema(yaml_program):
    schema = package_schema()
    for name, resource in ours(yaml_program).items():
        assert schema_errors(schema, resource["type"], resource["properties"]) == [], name


def test_yaml_plain_properties_are_known_values_only_secrets_are_interpolated(yaml_program):
    """Plain (graph-shaping) inputs must be known: only config may be interpolated into them."""
    config = yaml_program["config"]

    def interpolations(value, path):
        if isinstance(value, dict):
            return [i for k, v in value.items() for i in interpolations(v, f"{path}.{k}")]
        if isinstance(value, list):
            return [i for n, v in enumerate(value) for i in interpolations(v, f"{path}[{n}]")]
        if isinstance(value, str) and "${" in value:
            return [(path, value)]
        return []

    for resource in ours(yaml_program).values():
        for path, value in interpolations(resource["properties"], ""):
            match = INTERPOLATION.match(value)
            assert match and match[1] in config, f"{path}: {value} is not a config value"
            assert config[match[1]].get("secret", False) == path.startswith(".secrets."), path


@pytest.mark.slow
def test_yaml_outputs_are_component_outputs(yaml_program):
    schema = package_schema()
    resources = yaml_program["resources"]
    for output, expression in yaml_program["outputs"].items():
        resource, prop = INTERPOLATION_PROP.match(expression).groups()
        assert prop in schema["resources"][resources[resource]["type"]]["properties"], output


INTERPOLATION_PROP = re.compile(r"^\$\{([A-Za-z][A-Za-z0-9-]*)\.([A-Za-z]+)\}$")


def yaml_inputs(resource, program, stack_config):
    """The YAML properties as the engine sends them: config substituted, secrets as secret outputs."""
    import pulumi

    project = program["name"]

    def resolve(value):
        if isinstance(value, dict):
            return {k: resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [resolve(v) for v in value]
        match = INTERPOLATION.match(value) if isinstance(value, str) else None
        if match:
            raw = stack_config[f"{project}:{match[1]}"]
            if isinstance(raw, dict) and "secure" in raw:
                return pulumi.Output.secret("[offline-plan-secret]")
            return raw
        return value

    return as_wire(resolve(resource["properties"]))


@pytest.mark.slow
def test_yaml_program_plans_through_the_provider(yaml_program, yaml_stack):
    (name, resource), = ours(yaml_program).items()
    plan, result = construct_plan(resource["type"], name, lambda: yaml_inputs(resource, yaml_program, yaml_stack),
                                  stack="dev", project=yaml_program["name"])
    pools = [r for r in plan.of_type(NODE_POOL) if r.name.startswith(f"{name}-main-")]
    assert [p.inputs["name"] for p in pools] == ["pw-yaml-main-0", "pw-yaml-main-1"]
    assert all(p.inputs["placementPolicy"]["tpuTopology"] == "4x4" for p in pools)
    assert plan.named("pathways").type == "pathways-gke:index:PathwaysCluster"
    assert set(yaml_program["outputs"]) <= {k for k in result.state}
    (jobset,) = plan.of_type(JOBSET)
    assert jobset.inputs["metadata"] == {**jobset.inputs["metadata"], "name": "train", "namespace": "ml"}
    (secret,) = plan.of_type("kubernetes:core/v1:Secret")
    # the YAML secret config value stays secret
    assert re.fullmatch(r"<secret(:[0-9a-f]{12})?>", secret.inputs["stringData"])


# --- examples/workloads-only: a workloads stack reading the cluster stack -----------------------------

STACK_REFERENCE = "pulumi:pulumi:StackReference"
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"


def cluster_stack_outputs(stack: str) -> dict:
    """What the cluster stack's state holds after `pulumi up`: its planned exports, computed ones filled in."""
    from pathways_gke.gke.kubeconfig import kubeconfig
    from pathways_gke.plan.engine import plan_stack

    outputs = dict(plan_stack(stack, ROOT).outputs)
    outputs["endpoint"] = "203.0.113.10"
    outputs["kubeconfig"] = kubeconfig(f"gke_acme-ml-dev_us-east5_{outputs['clusterName']}", outputs["endpoint"],
                                       "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t")
    assert "<computed>" not in repr(outputs) and "<secret>" not in repr(outputs)
    return outputs


@pytest.fixture(scope="module")
def workloads_only():
    pytest.importorskip("pathways_gke.workloads.pathways",
                        reason="PathwaysWorkload is not importable")
    outputs = cluster_stack_outputs("dev")
    references = []

    def stack_reference(args):
        references.append(args.resource_id)
        return {"name": args.resource_id, "outputs": outputs, "secretOutputNames": ["kubeconfig"]}

    return plan_example("workloads-only", "dev", mocks=Cloud(reads={STACK_REFERENCE: stack_reference})), references


def test_cluster_stack_exports_what_workload_stacks_read(stack_plans):
    outputs = stack_plans("dev").outputs
    assert {"kubeconfig", "namespace", "cpuPool", "tpuPools", "tpuPoolNames"} <= set(outputs)
    # per group, a workload component's placement args, as PathwaysCluster gives them to its own workloads
    assert outputs["tpuPools"] == {"main": {
        "tpu_type": "v6e", "tpu_topology": "2x4", "slices": 1, "tpu_machine_type": "ct6e-standard-4t",
        "namespace": "default", "cpu_pool": "cpu-np", "cpu_machine_type": "n2-standard-64", "tpu_group": "main",
        "capacity": "spot"}}
    assert outputs["tpuPoolNames"] == {"main": ["pw-dev-main-0"]}
    assert "queueName" not in outputs and stack_plans("prod").outputs["queueName"] == "pathways-queue"


def test_workloads_only_reads_the_cluster_stack(workloads_only):
    plan, references = workloads_only
    assert references == ["acme/pathways-gke/dev"]
    (reference,) = plan.of_type(STACK_REFERENCE)
    assert reference.read
    # nothing of the cluster's infrastructure is in this stack
    assert not [r for r in plan.resources if r.type.startswith("gcp:")]


def test_workloads_only_uses_its_own_provider_with_the_referenced_kubeconfig(workloads_only):
    plan, _ = workloads_only
    (provider,) = plan.of_type("pulumi:providers:kubernetes")
    assert provider.name == "workloads-k8s" and provider.inputs["kubeconfig"] == "<secret>"
    k8s_resources = [r for r in plan.resources if r.custom and r.type.startswith("kubernetes:")]
    assert k8s_resources and {r.options["provider"] for r in k8s_resources} == {provider.urn}


def test_workloads_only_jobsets_match_the_referenced_pool_group(workloads_only):
    plan, _ = workloads_only
    jobsets = {r.inputs["metadata"]["name"]: r for r in plan.of_type(JOBSET)}
    assert set(jobsets) == {"sweep-a", "notebook"}
    for jobset in jobsets.values():
        assert jobset.inputs["metadata"]["namespace"] == "default"
        text = repr(jobset.inputs["spec"])
        assert "tpu-v6e-slice" in text and "2x4" in text and "pw-dev" not in text.replace("pw-dev-main", "")
    secrets = plan.of_type("kubernetes:core/v1:Secret")
    # the value never shows: only the salted digest of its ciphertext (a changed value is a changed input)
    assert [re.fullmatch(r"<secret(:[0-9a-f]{12})?>", s.inputs["stringData"]) is not None for s in secrets] == [True]


@pytest.mark.slow
def test_workloads_only_refuses_a_pool_group_the_cluster_does_not_have():
    pytest.importorskip("pathways_gke.workloads.pathways", reason="PathwaysWorkload is not importable")
    outputs = cluster_stack_outputs("dev")
    outputs["tpuPools"] = {"other": outputs["tpuPools"]["main"]}
    cloud = Cloud(reads={STACK_REFERENCE: lambda args: {
        "name": args.resource_id, "outputs": outputs, "secretOutputNames": []}})
    with pytest.raises(Exception, match=r"workloads\[sweep-a\].tpuPool: 'main' is not a TPU pool group"):
        plan_example("workloads-only", "dev", mocks=cloud)


def test_example_stacks_carry_no_made_up_ciphertext():
    """A `secure:` value no key decrypts fails `pulumi preview`; the user sets each secret (the file says how)."""
    for path in EXAMPLES.rglob("Pulumi.*.yaml"):
        text = path.read_text()
        assert "secure:" not in text, path
    for name in ("yaml", "workloads-only"):
        assert "pulumi config set --secret" in (EXAMPLES / name / "Pulumi.dev.yaml").read_text(), name
