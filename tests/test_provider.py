"""The component provider: schema snapshot, tokens, and the Construct path other languages take."""

import json
import tomllib

import pytest
import yaml

from pathways_gke import __version__
from pathways_gke import schema as schema_cli
from pathways_gke.plan.engine import plan_stack
from pathways_gke.provider import COMPONENTS, PACKAGE, component_provider, package_schema
from tests.conftest import ROOT, STACKS
from tests.support.args_cases import wire_inputs
from tests.support.examples import construct_plan
from tests.support.pulumi_schema import schema_errors
from tests.support.stacks import shipped


CLUSTER = "pathways-gke:index:PathwaysCluster"


@pytest.fixture(scope="module")
def schema():
    return package_schema()


@pytest.mark.slow
def test_schema_snapshot_is_up_to_date():
    """Fails on any unintended change of the public schema. Intended? `python -m pathways_gke.schema --write`."""
    committed = (ROOT / schema_cli.SNAPSHOT).read_text()
    current = schema_cli.current()
    assert committed == current, "run: python -m pathways_gke.schema --write (and review the diff)"


@pytest.mark.slow
def test_schema_check_command_fails_on_a_stale_snapshot(tmp_path, capsys, monkeypatch):
    stale = tmp_path / "schema.json"
    stale.write_text(schema_cli.current().replace('"clusterName"', '"clusterNom"', 1))
    monkeypatch.setattr(schema_cli, "SNAPSHOT", stale)
    assert schema_cli.main(["--check"]) == 1
    out = capsys.readouterr()
    assert "--write" in out.err and '"clusterNom"' in out.out  # the diff shows what changed
    assert schema_cli.main(["--write"]) == 0
    assert schema_cli.main(["--check"]) == 0


@pytest.mark.slow
def test_every_component_token_is_in_the_index_module(schema):
    assert schema["name"] == PACKAGE and schema["version"] == __version__
    assert sorted(schema["resources"]) == sorted(f"{PACKAGE}:index:{c.__name__}" for c in COMPONENTS)
    for component in COMPONENTS:
        assert component.__module__.startswith("pathways_gke")
    assert all(token.startswith(f"{PACKAGE}:index:") for token in schema["types"])


def test_cluster_inputs_are_typed(schema):
    resource = schema["resources"][CLUSTER]
    assert resource["isComponent"] is True
    assert resource["requiredInputs"] == ["cluster", "project"]
    inputs = resource["inputProperties"]
    assert inputs["cluster"]["$ref"] == "#/types/pathways-gke:index:Cluster"
    assert inputs["tpuPools"]["items"]["$ref"] == "#/types/pathways-gke:index:TpuPool"
    assert inputs["workloads"]["items"]["$ref"] == "#/types/pathways-gke:index:Workload"
    # graph-shaping values are plain (known at construction); secret values may be outputs
    assert inputs["cluster"]["plain"] is True and "plain" not in inputs["secrets"]
    pool = schema["types"]["pathways-gke:index:TpuPool"]
    assert pool["required"] == ["name", "type", "zone"]
    assert pool["properties"]["slices"]["type"] == "integer"
    assert pool["properties"]["capacity"]["$ref"] == "#/types/pathways-gke:index:Capacity"
    capacity = schema["types"]["pathways-gke:index:Capacity"]
    assert [e["value"] for e in capacity["enum"]] == ["on-demand", "spot", "reservation", "flex-start", "queued"]


def test_cluster_outputs_are_typed(schema):
    resource = schema["resources"][CLUSTER]
    props = resource["properties"]
    assert {k: v.get("type", v.get("$ref")) for k, v in props.items()} == {
        "clusterName": "string", "location": "string", "project": "string", "endpoint": "string",
        "kubeconfig": "string", "cpuPoolName": "string", "tpuPoolNames": "object", "tpuPools": "object",
        "namespace": "string", "nodeServiceAccountEmail": "string", "queueName": "string",
        "jaxBackendTargets": "object", "identities": "object", "actionsRequired": "array", "consoleLinks": "object",
        "servingEndpoints": "object", "clientTargets": "object", "connect": "object",
    }
    assert props["tpuPools"]["additionalProperties"]["$ref"] == "#/types/pathways-gke:index:WorkloadPlacement"
    assert set(resource["required"]) == set(props) - {"nodeServiceAccountEmail", "queueName", "consoleLinks",
                                                      "servingEndpoints", "clientTargets"}


def test_every_property_and_type_is_described(schema):
    missing = []
    for token, resource in schema["resources"].items():
        for kind in ("inputProperties", "properties"):
            missing += [f"{token}.{n}" for n, p in resource[kind].items() if not p.get("description")]
    for token, typ in schema["types"].items():
        if not typ.get("description"):
            missing.append(token)
        missing += [f"{token}.{n}" for n, p in typ.get("properties", {}).items() if not p.get("description")]
    assert missing == []


def test_plugin_manifest_and_requirements():
    manifest = yaml.safe_load((ROOT / "provider/PulumiPlugin.yaml").read_text())
    assert set(manifest) <= {"runtime", "packages", "requiredPulumiVersion", "main"}  # documented keys only
    assert manifest["runtime"]["name"] == "python"
    assert "pulumiVersionRange" not in manifest  # renamed in 3.221
    lines = (ROOT / "provider/requirements.txt").read_text().splitlines()
    requirements = [line for line in lines if line and not line.startswith("#")]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert requirements == project["dependencies"]


@pytest.mark.slow
def test_provider_entry_point_hosts_the_components(monkeypatch):
    """provider/__main__.py serves our ComponentProvider (package name, version, components) like the SDK host."""
    import runpy

    import pulumi.provider
    from pulumi.provider.experimental import host

    seen = {}
    monkeypatch.setattr(pulumi.provider, "main", lambda provider, args: seen.update(provider=provider, args=args))
    monkeypatch.setattr(host, "is_hosting", False)
    runpy.run_path(str(ROOT / "provider/__main__.py"), run_name="__main__")
    provider = seen["provider"]
    assert (provider._name, provider.version) == (PACKAGE, __version__)
    assert json.loads(provider.schema)["resources"][CLUSTER]["properties"]["kubeconfig"]["secret"] is True
    assert sorted(provider._components) == sorted(c.__name__ for c in COMPONENTS)


# --- Construct: what the plugin does for a TypeScript / Go / YAML program ------------------------------


def construct(name: str, inputs: dict, stack: str):
    """Run the provider's Construct logic (map_inputs, the constructor, get_state) under the mock engine."""
    return construct_plan(CLUSTER, name, inputs, stack=stack, project="pathways-gke")


@pytest.mark.parametrize("stack", STACKS)
def test_wire_inputs_conform_to_the_schema(stack, schema):
    inputs = wire_inputs(shipped(stack))
    assert schema_errors(schema, CLUSTER, inputs) == []


@pytest.mark.slow
@pytest.mark.parametrize("stack", STACKS)
def test_construct_with_wire_inputs_plans_exactly_like_the_stack_file(stack):
    config = shipped(stack)
    inputs = wire_inputs(config)
    assert isinstance(inputs["tpuPools"][0]["slices"], float)  # as the engine sends numbers
    plan, result = construct(config["pathways-gke:cluster"]["name"], inputs, stack)
    reference = plan_stack(stack, ROOT)
    assert [r.to_json() for r in plan.resources] == [r.to_json() for r in reference.resources]
    modes = {w.get("mode") for w in config.get("pathways-gke:workloads", [])}
    absent = ({"queueName"} if not config.get("pathways-gke:kueue", {}).get("enabled") else set()) \
        | ({"servingEndpoints"} if "serving" not in modes else set()) \
        | ({"clientTargets"} if "service" not in modes else set())
    assert set(result.state) == set(package_schema()["resources"][CLUSTER]["properties"]) - absent


@pytest.mark.slow
def test_map_inputs_gives_the_constructor_snake_case_dicts_with_floats_and_enums():
    """What the SDK hands PathwaysCluster.__init__ cross-language (why stack_input coerces)."""
    from pathways_gke.args import Capacity

    provider = component_provider()
    inputs = wire_inputs(shipped("dev"))
    mapped = provider.map_inputs(inputs, provider._component_defs["PathwaysCluster"])
    pool = mapped["tpu_pools"][0]
    assert pool["slices"] == 1.0 and isinstance(pool["slices"], float)
    assert pool["capacity"] is Capacity.SPOT
    assert mapped["cpu_pool"]["min_nodes"] == 1.0 and "minNodes" not in mapped["cpu_pool"]


@pytest.mark.slow
def test_construct_reports_bad_inputs_per_property():
    """TypeScript/Go/YAML programs get `InputPropertiesError`: one entry per bad property, by its input path."""
    import pulumi

    inputs = wire_inputs(shipped("dev"))
    inputs["tpuPools"][0]["topology"] = "3x3"
    inputs["cpuPool"]["maxNodes"] = 0.0
    with pytest.raises(pulumi.InputPropertiesError) as caught:
        construct("pw-dev", inputs, "dev")
    errors = {e["property_path"]: e["reason"] for e in caught.value.errors}
    assert set(errors) == {"tpuPools[0].topology", "cpuPool.maxNodes"}
    assert errors["tpuPools[0].topology"].startswith("'3x3' is not a v6e topology")
    assert "tpuPools[0].topology" in caught.value.message


@pytest.mark.slow
def test_construct_reports_workload_args_by_their_schema_names():
    import pulumi

    inputs = workload_wire_inputs()
    inputs["tpuTopology"] = "3x3"
    inputs["workload"]["pathways"]["version"] = "latest"
    with pytest.raises(pulumi.InputPropertiesError) as caught:
        construct_plan(WORKLOAD, "train", inputs, stack="dev", project="ml")
    paths = {e["property_path"] for e in caught.value.errors}
    assert paths == {"tpuTopology", "workload.pathways.version"}


@pytest.mark.slow
def test_the_plugin_answers_construct_errors_with_input_properties_details():
    """What the gRPC server does with our error: INVALID_ARGUMENT with InputPropertiesError details."""
    import asyncio

    from pulumi.provider.server import ProviderServicer

    class Aborted(Exception):
        pass

    class Context:
        status = None

        async def abort_with_status(self, status):
            Context.status = status
            raise Aborted()

    servicer = ProviderServicer.__new__(ProviderServicer)
    inputs = wire_inputs(shipped("dev"))
    inputs["tpuPools"][0]["topology"] = "3x3"

    async def failing_construct(request, context):
        try:
            construct("pw-dev", inputs, "dev")
        except Exception as exc:  # the error the provider's construct raises
            raise exc

    servicer._construct = failing_construct
    with pytest.raises(Aborted):
        asyncio.new_event_loop().run_until_complete(servicer.Construct(None, Context()))
    status = Context.status
    assert status.code.name == "INVALID_ARGUMENT" and "tpuPools[0].topology" in status.details
    assert status.trailing_metadata and status.trailing_metadata[0][0] == "grpc-status-details-bin"


# --- PathwaysWorkload through the provider ------------------------------------------------------------

WORKLOAD = "pathways-gke:index:PathwaysWorkload"


def workload_wire_inputs() -> dict:
    """A standalone PathwaysWorkload as a TypeScript/YAML program sends it (numbers as floats)."""
    return {
        "workload": {"name": "train", "image": "us-docker.pkg.dev/acme/train/trainer:2026-11-20",
                     "command": ["python3", "train.py"], "maxRestarts": 2.0,
                     "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}},
        "tpuType": "v6e", "tpuTopology": "4x4", "slices": 2.0, "namespace": "ml", "cpuPool": "cpu-np",
        "tpuGroup": "main", "capacity": "spot",
    }


def test_workload_inputs_conform_to_the_schema(schema):
    assert WORKLOAD in schema["resources"]
    assert schema_errors(schema, WORKLOAD, workload_wire_inputs()) == []


@pytest.mark.slow
def test_workload_construct_renders_the_jobset_with_floats_coerced():
    plan, result = construct_plan(WORKLOAD, "train", workload_wire_inputs(), stack="dev", project="ml")
    (jobset,) = plan.of_type("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet")
    assert jobset.inputs["metadata"]["name"] == "train" and jobset.inputs["metadata"]["namespace"] == "ml"
    workers = [j for j in jobset.inputs["spec"]["replicatedJobs"] if j["name"] == "worker"]
    assert workers and workers[0]["replicas"] == 2
    assert "jaxBackendTarget" in result.state
    assert plan.named("train").outputs["jaxBackendTarget"] == "grpc://train-pathways-head-0-0.train:29000"


SERVING = "pathways-gke:index:PathwaysServing"


def serving_wire_inputs(mode: str = "serving") -> dict:
    """A standalone PathwaysServing as a TypeScript/YAML program sends it (numbers as floats)."""
    workload = {"name": "chat", "mode": mode,
                "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}}
    if mode == "serving":
        workload.update(image="us-docker.pkg.dev/acme/serve/vllm-tpu:2026-11-20", command=["vllm", "serve", "m"],
                        serving={"port": 8000.0, "replicas": 2.0, "loadBalancer": "internal",
                                 "probes": {"path": "/health", "startupSeconds": 1800.0}})
    else:
        workload["service"] = {"clients": ["alice", "bob"]}
    return {"workload": workload, "tpuType": "v6e-16", "slices": 2.0, "namespace": "ml", "cpuPool": "cpu-np",
            "tpuGroup": "serve", "lwsVersion": "v0.10.0"}


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["serving", "service"])
def test_serving_construct_renders_the_leaderworkerset_with_floats_coerced(schema, mode):
    inputs = serving_wire_inputs(mode)
    assert schema_errors(schema, SERVING, inputs) == []
    plan, result = construct_plan(SERVING, "chat", inputs, stack="dev", project="ml")
    (lws,) = plan.of_type("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet")
    assert lws.inputs["metadata"] == {**lws.inputs["metadata"], "name": "chat", "namespace": "ml"}
    if mode == "serving":
        assert lws.inputs["spec"]["replicas"] == 2 and lws.inputs["spec"]["leaderWorkerTemplate"]["size"] == 5
        assert plan.named("chat").outputs["endpoint"] == "http://chat-svc.ml.svc.cluster.local:8000"
    else:
        assert sorted(r.name for r in plan.of_type("kubernetes:apps/v1:Deployment")) == [
            "chat-proxy-alice", "chat-proxy-bob"]
        assert plan.named("chat").outputs["clientTargets"]["bob"] == \
            "grpc://chat-proxy-bob.ml.svc.cluster.local:29000"


@pytest.mark.slow
def test_serving_construct_refuses_bad_args_naming_them():
    import pulumi

    inputs = serving_wire_inputs()
    inputs["lwsVersion"] = "v0.4.0"
    inputs["workload"]["serving"]["port"] = 29001.0
    with pytest.raises(pulumi.InputPropertiesError) as caught:
        construct_plan(SERVING, "chat", inputs, stack="dev", project="ml")
    assert {e["property_path"] for e in caught.value.errors} == {"lwsVersion", "workload.serving.port"}
    text = str(caught.value)  # the text a Python program and the CLI show (the args' Python names)
    assert "lws_version" in text and "workload.serving.port" in text


JAX = "pathways-gke:index:JaxWorkload"


@pytest.mark.slow
def test_jax_workload_construct_on_the_cpu_pool_with_float_counts(schema):
    inputs = {
        "workload": {"name": "eval", "image": "us-docker.pkg.dev/acme/eval/eval:2026-11-20",
                     "command": ["python3", "eval.py"], "jax": {"processes": 4.0, "slices": 2.0}, "maxRestarts": 1.0},
        "namespace": "ml", "cpuPool": "cpu-np",
    }
    assert schema_errors(schema, JAX, inputs) == []
    plan, result = construct_plan(JAX, "eval", inputs, stack="dev", project="ml")
    (jobset,) = plan.of_type("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet")
    jobs = jobset.inputs["spec"]["replicatedJobs"]
    assert sum(j["replicas"] * j["template"]["spec"]["parallelism"] for j in jobs) == 4
    assert plan.named("eval").outputs["processes"] == 4 and "coordinatorAddress" in result.state


@pytest.mark.slow
def test_plugin_boots_like_the_cli_starts_it_and_serves_the_committed_schema():
    """`python provider/__main__.py <engine>`: prints its port, answers GetSchema over gRPC (no CLI needed)."""
    import subprocess
    import sys
    import threading

    grpc = pytest.importorskip("grpc", reason="grpcio (a pulumi dependency) is missing")
    from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

    plugin = subprocess.Popen([sys.executable, str(ROOT / "provider/__main__.py"), "127.0.0.1:1"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT / "provider")
    watchdog = threading.Timer(60, plugin.kill)
    watchdog.start()
    try:
        port = plugin.stdout.readline().decode().strip()
        assert port.isdigit(), plugin.stderr.read().decode()[-2000:]
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = provider_pb2_grpc.ResourceProviderStub(channel)
            served = json.loads(stub.GetSchema(provider_pb2.GetSchemaRequest(version=0), timeout=30).schema)
    finally:
        watchdog.cancel()
        plugin.terminate()
        plugin.wait(10)
        plugin.stdout.close()
        plugin.stderr.close()
    assert schema_cli.render(served) == (ROOT / schema_cli.SNAPSHOT).read_text()


def test_schema_types_the_workload_marks_kubeconfig_secret_and_names_no_args_types(schema):
    workload = schema["resources"][WORKLOAD]["inputProperties"]["workload"]
    assert workload["$ref"] == "#/types/pathways-gke:index:Workload"  # not a map of Any
    assert schema["resources"][CLUSTER]["properties"]["kubeconfig"]["secret"] is True
    # generated SDKs append "Args" to input types: a type already named ...Args becomes ...ArgsArgs
    assert [t for t in schema["types"] if t.endswith("Args")] == []
    # property-only values accept outputs cross-language; graph-shaping ones stay plain
    cluster = schema["types"]["pathways-gke:index:Cluster"]["properties"]
    assert "plain" not in cluster["network"] and cluster["name"].get("plain") is True


@pytest.mark.slow
def test_the_tpu_pools_output_reaches_other_languages_with_the_schemas_names(schema):
    """The SDK maps an output object's names to the schema's, but not objects inside a map output: the provider
    does, so a TypeScript program reads `tpuPools.main.tpuType`, as the WorkloadPlacement type it was generated
    with says, and passes it to a PathwaysWorkload unchanged (the same names its inputs have)."""
    import pulumi

    from tests.support.offline import run

    provider = component_provider()
    seen: dict = {}

    def program():
        result = provider.construct("pw-dev", CLUSTER, wire_inputs(shipped("dev")), pulumi.ResourceOptions())
        result.state["tpuPools"].apply(seen.update)

    run(program, stack="dev", project="pathways-gke")
    placement = schema["types"]["pathways-gke:index:WorkloadPlacement"]["properties"]
    assert set(seen) == {"main"} and set(seen["main"]) <= set(placement)
    assert seen["main"]["tpuType"] == "v6e" and seen["main"]["tpuGroup"] == "main"
    workload_inputs = schema["resources"]["pathways-gke:index:PathwaysWorkload"]["inputProperties"]
    assert set(seen["main"]) <= set(workload_inputs)
