"""Every component follows one convention (docs/architecture.md, "Component conventions"; component.py):
`(name, args, opts)`; rehydrated alike from `opts.urn`; never replaced itself, passing `depends_on` /
`replace_with` on to the children it chooses; invalid args as one `pulumi.InputPropertiesError` that a Python
program, the component provider and the CLI all show with the same text."""

import inspect
import json
from typing import get_type_hints

import pulumi
import pytest

from pathways_gke.access import Access, AccessArgs
from pathways_gke.cluster import PathwaysCluster, TpuSliceGroup, TpuSliceGroupArgs
from pathways_gke.cli import main as cli_main
from pathways_gke.config.model import ClusterFacts, StackConfig
from pathways_gke.config.stack import parse_stack, read_stack_file
from pathways_gke.errors import ConfigError
from pathways_gke.plan.engine import run_program
from pathways_gke.services import ClusterServices, ClusterServicesArgs
from pathways_gke.tokens import (CLUSTER_SERVICES, JAX_WORKLOAD, PATHWAYS_CLUSTER, PATHWAYS_SERVING, PATHWAYS_WORKLOAD,
                                 TPU_SLICE_GROUP)
from pathways_gke.workloads import jax, pathways, serving
from tests.conftest import ROOT
from tests.support.args_cases import python_args, wire_inputs
from tests.support.examples import construct_plan

COMPONENTS = {PathwaysCluster: PATHWAYS_CLUSTER, TpuSliceGroup: TPU_SLICE_GROUP, ClusterServices: CLUSTER_SERVICES,
              pathways.PathwaysWorkload: PATHWAYS_WORKLOAD, jax.JaxWorkload: JAX_WORKLOAD,
              serving.PathwaysServing: PATHWAYS_SERVING}
IMAGE = "us-docker.pkg.dev/acme/train/trainer:2026-11-20"
PATHWAYS = {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}


@pytest.mark.parametrize("component", [*COMPONENTS, Access], ids=lambda c: c.__name__)
def test_every_component_is_built_from_name_args_opts(component):
    assert list(inspect.signature(component.__init__).parameters) == ["self", "name", "args", "opts"]


def test_a_rehydrated_component_reads_no_args_and_registers_nothing():
    """With `opts.urn` (a resource reference being rehydrated) every component is its existing state."""
    def program():
        for component, token in COMPONENTS.items():
            name = component.__name__.lower()
            existing = pulumi.ComponentResource(token, name)
            pulumi.export(name, existing.urn.apply(
                lambda urn, component=component, name=name: component(name, None, pulumi.ResourceOptions(urn=urn)).urn))

    plan = run_program(program, stack="dev", project="ml", config={}, secret_keys=[])
    assert sorted(r.name for r in plan.resources) == sorted(c.__name__.lower() for c in COMPONENTS)
    assert plan.outputs == {r.name: r.urn for r in plan.resources}


@pytest.mark.parametrize("args", [TpuSliceGroupArgs, ClusterServicesArgs, AccessArgs], ids=lambda a: a.__name__)
def test_child_components_take_the_cluster_facts_and_their_own_section_not_the_stack(args):
    hints = get_type_hints(args)
    assert hints["cluster"] is ClusterFacts
    assert StackConfig not in hints.values()


@pytest.mark.slow
def test_a_validated_stack_is_built_by_the_named_constructor_only():
    """`PathwaysCluster.from_stack` plans exactly like the args; a StackConfig passed as args is bad args."""
    config = read_stack_file(ROOT / "stacks" / "Pulumi.dev.yaml")
    stack = parse_stack(config)
    named = run_program(lambda: PathwaysCluster.from_stack("pw-dev", stack), stack="dev", project="platform",
                        config={}, secret_keys=[])
    by_args = run_program(lambda: PathwaysCluster("pw-dev", python_args(config)), stack="dev", project="platform",
                          config={}, secret_keys=[])
    assert [(r.type, r.name, r.inputs) for r in named.resources] == [
        (r.type, r.name, r.inputs) for r in by_args.resources]
    with pytest.raises(pulumi.InputPropertiesError) as wrong:
        run_program(lambda: PathwaysCluster("pw-dev", stack), stack="dev", project="platform", config={},
                    secret_keys=[])  # type: ignore[arg-type]
    assert "must be a mapping of PathwaysClusterArgs" in str(wrong.value)


WORKLOADS = {
    "pathways": (pathways.PathwaysWorkload, {
        "workload": {"name": "train", "image": IMAGE, "command": "python3 train.py", "pathways": PATHWAYS,
                     "secretEnv": {"T": "tok"}},
        "tpu_type": "v6e", "tpu_topology": "4x4", "slices": 2, "namespace": "ml", "tpu_group": "main",
        "secrets": {"tok": "x"}}),
    "jax": (jax.JaxWorkload, {
        "workload": {"name": "eval", "image": IMAGE, "command": "python3 eval.py", "jax": {"processes": 2},
                     "secret_env": {"T": "tok"}},
        "namespace": "ml", "cpu_pool": "cpu-np", "secrets": {"tok": "x"}}),
    "serving": (serving.PathwaysServing, {
        "workload": {"name": "chat", "mode": "serving", "image": IMAGE, "command": "serve", "pathways": PATHWAYS,
                     "serving": {"port": 8000}, "secretEnv": {"T": "tok"}},
        "tpu_type": "v6e-16", "slices": 2, "namespace": "ml", "tpu_group": "serve", "secrets": {"tok": "x"}}),
}
# the children a replaced pool replaces: a JobSet's spec is immutable; LeaderWorkerSet pods just reschedule
REPLACED = {"pathways": {"w-jobset"}, "jax": {"w-jobset"}, "serving": set()}


@pytest.mark.parametrize("kind", sorted(WORKLOADS))
def test_a_workload_is_never_replaced_itself_and_passes_its_options_on(kind):
    component, args = WORKLOADS[kind]

    def program():
        ready = pulumi.CustomResource("test:index:Ready", "ready", {})
        pool = pulumi.CustomResource("test:index:Pool", "pool", {})
        component("w", args, pulumi.ResourceOptions(depends_on=[ready], replace_with=[pool]))

    plan = run_program(program, stack="dev", project="ml", config={}, secret_keys=[])
    ready, pool, own = plan.named("ready").urn, plan.named("pool").urn, plan.named("w")
    assert ready in own.depends_on and not own.options.get("replaceWith")
    children = [r for r in plan.resources if r.parent == own.urn]
    assert len(children) >= 2 and any(r.name.endswith("-env") for r in children)  # the Secret too
    for child in children:
        assert ready in child.depends_on, child.name
    assert {r.name for r in children if r.options.get("replaceWith") == [pool]} == REPLACED[kind]
    assert all(r.options.get("replaceWith") in (None, [], [pool]) for r in children)


@pytest.mark.parametrize("kind", sorted(WORKLOADS))
def test_a_protected_workload_protects_none_of_its_children(kind):
    """protect is decided per child kind (protection.py), never inherited: a protected LWS could not roll."""
    component, args = WORKLOADS[kind]
    plan = run_program(lambda: component("w", args, pulumi.ResourceOptions(protect=True)), stack="dev",
                       project="ml", config={}, secret_keys=[])
    children = [r for r in plan.resources if r.parent == plan.named("w").urn]
    assert children and [r.name for r in children if r.options["protect"]] == []


def bad_dev_config() -> dict:
    config = read_stack_file(ROOT / "stacks" / "Pulumi.dev.yaml")
    config["pathways-gke:tpuPools"][0]["topology"] = "3x3"
    config["pathways-gke:cpuPool"]["maxNodes"] = 0
    config["gcp:project"] = "Acme"
    return config


@pytest.mark.slow
def test_invalid_args_are_one_error_for_a_program_the_provider_and_the_cli(tmp_path, capsys):
    config = bad_dev_config()
    with pytest.raises(ConfigError) as from_stack_file:
        parse_stack(config)
    text = from_stack_file.value.render()

    # a Python program
    args = python_args(config)
    with pytest.raises(pulumi.InputPropertiesError) as from_program:
        run_program(lambda: PathwaysCluster("pw-dev", args), stack="dev", project="platform", config={},
                    secret_keys=[])
    errors = {e["property_path"]: e["reason"] for e in from_program.value.errors}
    assert set(errors) == {"project", "tpuPools[0].topology", "cpuPool.maxNodes"}  # the input property names
    assert errors["tpuPools[0].topology"].startswith("'3x3' is not a v6e topology")
    assert from_program.value.message == str(from_program.value) == text
    assert from_program.value.paths == from_stack_file.value.paths  # still the ConfigError it came from

    # a TypeScript / Go / YAML program, through the component provider
    with pytest.raises(pulumi.InputPropertiesError) as from_provider:
        construct_plan(PATHWAYS_CLUSTER, "pw-dev", wire_inputs(config), stack="dev", project="platform")
    assert (from_provider.value.message, from_provider.value.errors) == (text, from_program.value.errors)

    # the CLI planning a project whose own program builds the component: exit 2, the same text, no traceback
    (tmp_path / "Pulumi.yaml").write_text("name: platform\nruntime: python\n")
    (tmp_path / "args.json").write_text(json.dumps(args))
    (tmp_path / "__main__.py").write_text(
        "import json, pathlib\nfrom pathways_gke import PathwaysCluster\n"
        "PathwaysCluster('pw-dev', json.loads((pathlib.Path(__file__).parent / 'args.json').read_text()))\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    capsys.readouterr()
    assert cli_main(["plan", "--stack", "dev", "--project-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == text + "\n"


@pytest.mark.parametrize("kind, edit, paths", [
    ("pathways", lambda a: a.update(tpu_topology="3x3"), {"tpuTopology"}),
    ("jax", lambda a: a["workload"].update(secret_env={"T": "missing"}), {"workload.secretEnv.T"}),
    ("serving", lambda a: a.update(lws_version="v0.4.0"), {"lwsVersion"}),
])
def test_every_workload_component_refuses_bad_args_by_input_property_registering_nothing(kind, edit, paths):
    component, args = WORKLOADS[kind]
    args = json.loads(json.dumps(args))
    edit(args)
    with pytest.raises(pulumi.InputPropertiesError) as caught:
        run_program(lambda: component("w", args), stack="dev", project="ml", config={}, secret_keys=[])
    assert {e["property_path"] for e in caught.value.errors} == paths
    assert caught.value.message.startswith("invalid config (1 problem):")
