"""PathwaysClusterArgs: the typed, cross-language arguments mirror the stack-config models exactly."""

import functools
import typing
from enum import Enum
from typing import get_args, get_origin

import pulumi
import pytest
from pydantic import BaseModel

from pathways_gke import args as A
from pathways_gke.cluster import PathwaysCluster
from pathways_gke.config import (access, addons, autoprovisioning, checkpointing, cluster, ironwood, observability,
                                 pathways, restart, serving, stack, tpu, workloads)
from pathways_gke.config.stack import parse_stack, read_stack_file
from pathways_gke.errors import ConfigError
from pathways_gke.plan.engine import plan_stack
from tests.conftest import ROOT, STACKS
from tests.support.args_cases import python_args, wire_inputs
from tests.support.offline import run

# every TypedDict and the pydantic model it mirrors
SECTIONS = [
    (A.Cluster, cluster.ClusterConfig),
    (A.NodeServiceAccount, cluster.NodeServiceAccount),
    (A.Autoprovisioning, autoprovisioning.AutoprovisioningConfig),
    (A.Maintenance, cluster.Maintenance),
    (A.MaintenanceWindow, cluster.MaintenanceWindow),
    (A.MaintenanceExclusion, cluster.MaintenanceExclusion),
    (A.CpuPool, cluster.CpuPoolConfig),
    (A.TpuPool, tpu.TpuPoolConfig),
    (A.Reservation, tpu.Reservation),
    (A.DynamicSlice, ironwood.DynamicSlice),
    (A.AdditionalNetwork, ironwood.AdditionalNetwork),
    (A.JobSet, addons.JobSetConfig),
    (A.Kueue, addons.KueueConfig),
    (A.Workload, workloads.WORKLOAD_MODELS),
    (A.PathwaysSettings, workloads.PathwaysSettings),
    (A.JaxSettings, workloads.JaxSettings),
    (A.PathwaysImages, pathways.PathwaysImages),
    (A.PathwaysFlags, pathways.PathwaysFlags),
    (A.PathwaysEnv, pathways.PathwaysEnv),
    (A.ContainerResources, pathways.ContainerResources),
    (A.GcsFuseVolume, pathways.GcsFuseVolume),
    (A.Sidecar, pathways.Sidecar),
    (A.SidecarResources, pathways.SidecarResources),
    (A.Nat, access.NatConfig),
    (A.AuthorizedNetwork, access.AuthorizedNetwork),
    (A.Bucket, access.BucketConfig),
    (A.BucketAccess, access.BucketAccess),
    (A.Observability, observability.ObservabilityConfig),
    (A.Lws, addons.LwsConfig),
    (A.ServingSettings, serving.ServingSettings),
    (A.ServingPort, serving.ServingPort),
    (A.ServingProbes, serving.ServingProbes),
    (A.ServiceSettings, serving.ServiceSettings),
    (A.ClusterCheckpointing, checkpointing.ClusterCheckpointing),
    (A.WorkloadCheckpointing, checkpointing.WorkloadCheckpointing),
    (A.RestartSettings, restart.RestartSettings),
]
# TypedDict field -> Enum, and the pydantic field whose Literal it must equal
ENUMS = [
    (A.ReleaseChannel, cluster.ClusterConfig, "release_channel"),
    (A.ClusterDns, cluster.ClusterConfig, "dns"),
    (A.DiskType, cluster.CpuPoolConfig, "disk_type"),
    (A.DiskType, tpu.TpuPoolConfig, "disk_type"),
    (A.Capacity, tpu.TpuPoolConfig, "capacity"),
    (A.MaintenanceScope, cluster.MaintenanceExclusion, "scope"),
    (A.HostMaintenanceInterval, tpu.TpuPoolConfig, "host_maintenance_interval"),
    (A.Runtime, workloads.WORKLOAD_MODELS, "runtime"),
    (A.WorkloadMode, workloads.PathwaysWorkloadConfig, "mode"),
    (A.BucketAccessMode, access.BucketAccess, "access"),
    (A.LeaderPlacement, serving.ServingSettings, "leader"),
    (A.LeaderPlacement, serving.ServiceSettings, "leader"),
    (A.LoadBalancer, serving.ServingSettings, "load_balancer"),
    (A.RestartStrategy, restart.RestartSettings, "strategy"),
]


def model_fields(model) -> dict:
    """A model's fields; a union's (the workload runtimes) merged, the first (default) runtime's winning."""
    if isinstance(model, tuple):
        return {name: field for member in reversed(model) for name, field in model_fields(member).items()}
    return dict(model.model_fields)


@functools.cache
def package() -> dict:
    from pathways_gke.provider import package_schema

    return package_schema()


@functools.cache
def schema_types() -> dict:
    return package()["types"]


def literal_values(annotation) -> set:
    if get_origin(annotation) is typing.Literal:
        return set(get_args(annotation))
    return {v for a in get_args(annotation) for v in literal_values(a)}


@pytest.mark.parametrize("typed, model", SECTIONS, ids=lambda x: getattr(x, "__name__", "Workload"))
def test_typed_dict_fields_are_the_model_fields(typed, model: type[BaseModel]):
    assert sorted(A.field_types(typed)) == sorted(model_fields(model))


@pytest.mark.parametrize("typed, model", SECTIONS, ids=lambda x: getattr(x, "__name__", "Workload"))
def test_required_fields_agree_with_the_model(typed, model: type[BaseModel]):
    members = model if isinstance(model, tuple) else (model,)
    required = set.intersection(*({n for n, f in m.model_fields.items() if f.is_required()} for m in members))
    assert set(typed.__required_keys__) == required


def root_arg_type(field, typed_of: dict):
    """The arg type a root-model field must have: its section's TypedDict (a list section's as a list)."""
    annotation = field.annotation
    if get_origin(annotation) is tuple:
        return list[typed_of[id(get_args(annotation)[0])]]
    return typed_of.get(id(annotation), annotation)


class _SecretValues(typing.TypedDict):
    secrets: pulumi.Input[typing.Mapping[str, pulumi.Input[str]]]


@pytest.mark.slow
def test_cluster_args_are_the_root_models_fields():
    """PathwaysClusterArgs is generated from the root model: one arg per field (its stack key in snake_case),
    of the section's type, required as the field is, described by the field's docstring (in the generated
    module and in the schema), so the args and the model cannot drift."""
    import ast

    from pydantic.alias_generators import to_snake

    from pathways_gke.config.model import SECRET_VALUES, STACK_KEYS, StackConfig

    fields = StackConfig.model_fields
    hints = A.field_types(A.PathwaysClusterArgs)
    args = [to_snake((f.alias or n).rpartition(":")[2]) for n, f in fields.items()]
    assert list(hints) == args == list(STACK_KEYS)
    assert [STACK_KEYS[a] for a in args] == ["gcp:project", *stack.KNOWN_KEYS]
    assert set(A.PathwaysClusterArgs.__required_keys__) == {a for a, f in zip(args, fields.values())
                                                             if f.is_required()} == {"project", "cluster"}
    typed_of = {id(model): typed for typed, model in SECTIONS if isinstance(model, type)}
    typed_of[id(workloads.WorkloadConfig)] = A.Workload
    for arg, field in zip(args, fields.values()):
        expected = (A.field_types(_SecretValues)["secrets"] if SECRET_VALUES in field.metadata
                    else root_arg_type(field, typed_of))
        assert hints[arg] == expected, arg

    source = (ROOT / "components/pathways_gke/args_types.py").read_text()
    body = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "PathwaysClusterArgs")
    docs = {a.target.id: d.value.value for a, d in zip(body.body, body.body[1:])
            if isinstance(a, ast.AnnAssign) and isinstance(d, ast.Expr)}
    assert docs == {arg: field.description for arg, field in zip(args, fields.values())}
    inputs = package()["resources"]["pathways-gke:index:PathwaysCluster"]["inputProperties"]
    assert {name: p["description"] for name, p in inputs.items()} == {
        A.camel(arg): field.description for arg, field in zip(args, fields.values())}


def test_top_level_args_are_the_stack_config_keys():
    names = [A.camel(n) for n in A.field_types(A.PathwaysClusterArgs)]
    assert names == ["project", *stack.KNOWN_KEYS]


@pytest.mark.parametrize("enum, model, field", ENUMS, ids=lambda x: getattr(x, "__name__", x))
def test_enums_are_the_models_closed_sets(enum: type[Enum], model, field):
    assert {m.value for m in enum} == literal_values(model_fields(model)[field].annotation) | (
        {v for m in model for v in literal_values(m.model_fields[field].annotation)} if isinstance(model, tuple) else set())


@pytest.mark.parametrize("typed, model", SECTIONS, ids=lambda x: getattr(x, "__name__", "Workload"))
def test_every_closed_set_of_the_model_is_an_enum_arg(typed, model: type[BaseModel]):
    """A Literal in the model is an Enum in the args (Literal crashes the schema analyzer)."""
    hints = A.field_types(typed)
    for name, field in model_fields(model).items():
        values = literal_values(field.annotation) if name != "runtime" else {"pathways", "jax"}
        if values:
            enum = hints[name]
            assert isinstance(enum, type) and issubclass(enum, Enum), f"{typed.__name__}.{name}"
            assert {m.value for m in enum} == values, f"{typed.__name__}.{name}"


def nested_models(model: type[BaseModel]) -> set:
    found = set()
    for field in model.model_fields.values():
        stack = [field.annotation]
        while stack:
            item = stack.pop()
            if isinstance(item, type) and issubclass(item, BaseModel):
                found |= {item} | nested_models(item)
            stack.extend(get_args(item))
    return found


def test_every_nested_model_has_a_typed_dict():
    """A new nested section in the config models must get its TypedDict (and a row in SECTIONS)."""
    roots = {m for root in stack._ROOT_MODELS.values() for m in ([root] if isinstance(root, type) else
                                                                 workloads.WORKLOAD_MODELS)}
    reachable = roots | {m for r in roots for m in nested_models(r)}
    assert reachable == {m for _, model in SECTIONS for m in (model if isinstance(model, tuple) else (model,))}


def test_module_stays_inside_the_schema_inference_limits():
    import ast

    tree = ast.parse((ROOT / "components/pathways_gke/args.py").read_text())
    futures = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    assert futures == []  # the analyzer reads annotations unevaluated: postponed ones crash it
    for typed, _ in SECTIONS:
        for name, hint in A.field_types(typed).items():
            # unions are refused by the analyzer, except pulumi.Input[T] (property-only values that accept Outputs)
            is_input = get_origin(hint) is typing.Union and any(
                getattr(a, "__origin__", a) is pulumi.Output for a in typing.get_args(hint))
            assert "Literal" not in repr(hint) and (get_origin(hint) is not typing.Union or is_input), \
                f"{typed.__name__}.{name}"


@pytest.mark.slow
@pytest.mark.parametrize("typed, model", SECTIONS, ids=lambda x: getattr(x, "__name__", "Workload"))
def test_documented_defaults_are_the_models_defaults(typed, model: type[BaseModel]):
    """A docstring saying `Default: X` must tell the truth (the schema description shows it)."""
    import json

    types = schema_types()
    props = types[f"pathways-gke:index:{typed.__name__}"]["properties"]
    for name, field in model_fields(model).items():
        description = props[A.camel(name)].get("description", "")
        assert description, f"{typed.__name__}.{name} has no docstring"
        if "Default: " in description and field.default is not None and not callable(field.default_factory):
            said = description.split("Default: ", 1)[1].rstrip(".")
            assert said == json.dumps(field.default), f"{typed.__name__}.{name}"


@pytest.mark.parametrize("name", STACKS)
def test_python_args_and_wire_inputs_validate_to_the_stack_files_config(name):
    config = read_stack_file(ROOT / "stacks" / f"Pulumi.{name}.yaml")
    expected = same_commands(parse_stack(config))
    assert same_commands(parse_stack(A.stack_input(python_args(config)))) == expected
    assert same_commands(parse_stack(A.stack_input(wire_inputs(config)))) == expected


def same_commands(stack_config):
    """The schema's command is an argument list; the stack file may hold it as one string: same program."""
    return stack_config.model_copy(update={"workloads": tuple(
        w.model_copy(update={"command": w.command_text}) for w in stack_config.workloads)})


def test_ints_arriving_as_floats_are_coerced_everywhere_an_int_belongs():
    converted = A.stack_input({"project": "p", "tpu_pools": [{"name": "a", "slices": 4.0, "disk_size_gb": 100.0}],
                               "cpu_pool": {"min_nodes": 0.0, "labels": {"tier": "x"}},
                               "workloads": [{"name": "w", "pathways": {"elastic_slices": 1.0}}]})
    assert converted["tpuPools"][0] == {"name": "a", "slices": 4, "diskSizeGb": 100}
    assert type(converted["tpuPools"][0]["slices"]) is int
    assert converted["cpuPool"] == {"minNodes": 0, "labels": {"tier": "x"}}
    assert converted["workloads"][0]["pathways"] == {"elasticSlices": 1}


def test_a_fractional_number_is_reported_at_its_path():
    config = read_stack_file(ROOT / "stacks/Pulumi.dev.yaml")
    args = python_args(config)
    args["tpu_pools"][0]["slices"] = 1.5
    with pytest.raises(ConfigError) as caught:
        parse_stack(A.stack_input(args))
    assert caught.value.paths == ["tpuPools[0].slices"]
    assert "1.5" in str(caught.value)


def test_unknown_keys_are_reported_with_their_stack_path():
    config = read_stack_file(ROOT / "stacks/Pulumi.dev.yaml")
    args = python_args(config)
    args["cpu_pool"]["max_node"] = 3
    with pytest.raises(ConfigError) as caught:
        parse_stack(A.stack_input(args))
    assert caught.value.paths == ["cpuPool.max_node"]
    assert "maxNodes" in str(caught.value)


def test_outputs_in_graph_shaping_fields_are_refused_before_anything_registers(recording_runs):
    import pulumi

    args = python_args(read_stack_file(ROOT / "stacks/Pulumi.dev.yaml"))
    args["tpu_pools"][0]["topology"] = pulumi.Output.from_input("2x4")
    with pytest.raises(ConfigError) as caught:
        A.stack_input(args)
    assert caught.value.paths == ["tpuPools[0].topology"]
    assert "plain value" in str(caught.value)


def test_secret_values_never_reach_validation_only_their_names():
    converted = A.stack_input({"project": "p", "secrets": {"hf-token": "s3cr3t"}})
    assert converted["secrets"] == {"hf-token": A.SECRET_NAME_PLACEHOLDER}


@pytest.mark.slow
@pytest.mark.parametrize("name", STACKS)
def test_python_args_plan_exactly_like_the_stack_file(name):
    config = read_stack_file(ROOT / "stacks" / f"Pulumi.{name}.yaml")
    reference = plan_stack(name, ROOT)
    args = python_args(config)
    plan = run(lambda: PathwaysCluster(config["pathways-gke:cluster"]["name"], args), stack=name)
    assert [r.to_json() for r in plan.resources] == [r.to_json() for r in reference.resources]


def test_generated_argument_types_are_current():
    """args_types.py is generated from the config models; a model change must be followed by --write."""
    from pathways_gke import argsgen

    assert argsgen.TARGET.read_text() == argsgen.generate(), \
        "run: python -m pathways_gke.argsgen --write (then python -m pathways_gke.schema --write)"


def test_the_args_check_command_fails_on_a_stale_module(tmp_path, monkeypatch, capsys):
    from pathways_gke import argsgen

    stale = tmp_path / "args_types.py"
    stale.write_text(argsgen.generate().replace("Newest GKE versions first.", "Oldest first."))
    monkeypatch.setattr(argsgen, "TARGET", stale)
    assert argsgen.main(["--check"]) == 1
    assert "Oldest first." in capsys.readouterr().out


def test_every_closed_set_names_a_literal_the_models_use():
    """A closed set nobody uses is stale: every enum of CLOSED_SETS is in the generated module."""
    from pathways_gke.config.closed_sets import CLOSED_SETS

    assert {c.name for c in CLOSED_SETS} <= {n for n in dir(A) if isinstance(getattr(A, n), type)
                                             and issubclass(getattr(A, n), Enum)}


def test_a_model_field_without_a_docstring_fails_generation(monkeypatch):
    from pathways_gke import argsgen

    field = cluster.ClusterConfig.model_fields["name"]
    monkeypatch.setattr(field, "description", None)
    with pytest.raises(ValueError, match="ClusterConfig.name has no docstring"):
        argsgen.generate()


def test_every_version_key_is_described_from_releases_py():
    """A bumped default in releases.py is what the schema, the generated args and docs/components.md then say."""
    from pathways_gke.config.addons import JobSetConfig, KueueConfig, LwsConfig
    from pathways_gke.releases import RELEASES, default_version

    for addon, model in (("jobset", JobSetConfig), ("kueue", KueueConfig), ("lws", LwsConfig)):
        description = model.model_fields["version"].description or ""
        assert f'Default: "{default_version(addon)}"' in description and RELEASES[addon].oldest in description
    generated = (ROOT / "components" / "pathways_gke" / "args_types.py").read_text()
    for addon in ("lws", "kueue"):
        assert f'Default: "{default_version(addon)}"' in generated.split(f"{addon}_version: NotRequired")[1][:400]
