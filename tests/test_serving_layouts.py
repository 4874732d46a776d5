"""Serving that serves: head sidecars and args (Google's JetStream layout), a proxy its clients can reach, TPU-leader
sizing, Kueue's LeaderWorkerSet name limit, and the controller-pin rule (issue 25).

Every rendered object here is what a stack or a component really renders; the LWS and JobSet objects are checked
against the stored upstream CRDs and the LWS webhook rules.
"""

import pulumi
import pytest

from pathways_gke import PathwaysServing
from pathways_gke.catalog import TPU_HOSTS, gke_allocatable
from pathways_gke.config.addons import JobSetConfig, KueueConfig, LwsConfig
from pathways_gke.config.pathways_checks import SERVER_SIZES, TPU_HEAD_SHARE, tpu_head_server_sizes
from pathways_gke.config.stack import parse_stack
from pathways_gke.config.placement import Placement
from pathways_gke.config.types import parse_quantity
from pathways_gke.errors import ConfigError
from pathways_gke.naming import IFRT_PROXY_INSECURE_ENV
from pathways_gke.releases import KUEUE_LWS_NAME_LIMIT, RELEASES, kueue_lws_name_problem, release_change
from pathways_gke.render.pathways_jobset import build_pathways_jobset
from pathways_gke.workloads.serving import validate_args
from pathways_gke.render.serving_lws import access_facts, serving_objects
from tests.support.crd import jobset_schema_errors, lws_schema_errors
from tests.support.k8s_schema import pod_from_template, pod_schema_errors
from tests.support.lws_rules import lws_rule_errors
from tests.support.offline import run
from tests.support.stacks import parsed, shipped

P = "pathways-gke:"
IMAGE = "us-docker.pkg.dev/acme/serve/server:2026-11"
HTTP_IMAGE = "us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-http:v0.2.3"
LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"


def stack_objects(name):
    stack = parse_stack(shipped(name))
    return {w.name: serving_objects(w, Placement.of(stack, w)) for w in stack.workloads if w.on_lws}


def leader(lws):
    return lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]


def by_name(containers):
    return {c["name"]: c for c in containers}


def env_of(container):
    return {e["name"]: e.get("value") for e in container.get("env", [])}


def serving_args(**workload):
    base = {"name": "chat", "mode": "serving", "image": IMAGE, "command": "serve", "serving": {"port": 8000},
            "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}}
    return {"workload": {**base, **workload}, "tpu_type": "v6e-16", "slices": 2}


def objects_of(args):
    """What a PathwaysServing registers for `args`, through its own validation."""
    return validate_args(args).objects


def problems_of(args):
    with pytest.raises(ConfigError) as caught:
        validate_args(args)
    return {p.path: p.message for p in caught.value.problems}


# --- Google's JetStream layout (stacks/Pulumi.jetstream.yaml) ------------------------------------------------------


@pytest.fixture(scope="module")
def jetstream():
    return stack_objects("jetstream")["jetstream-llama-405b"]


def test_the_jetstream_leader_runs_the_engine_and_the_http_front_end_beside_the_pathways_servers(jetstream):
    spec = leader(jetstream.lws)["spec"]
    assert [c["name"] for c in spec["containers"]] == ["jax-tpu", "jetstream-http", "pathways-proxy", "pathways-rm"]
    containers = by_name(spec["containers"])
    # the engine: MaxText's server with its key=value args after the command, gRPC on 9000
    engine = containers["jax-tpu"]
    assert engine["command"][-1].startswith("python3 -m MaxText.maxengine_server ")
    assert engine["command"][-1].endswith(" quantize_kvcache=true checkpoint_is_quantized=true enable_model_warmup=true")
    assert engine["ports"] == [{"name": "grpc", "containerPort": 9000, "protocol": "TCP"}]
    # the probes follow port 8000 to the container that owns it
    http = containers["jetstream-http"]
    assert http["image"] == HTTP_IMAGE and "restartPolicy" not in http  # a regular container, as Google's
    assert http["ports"] == [{"name": "http", "containerPort": 8000, "protocol": "TCP"}]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert http[probe]["httpGet"] == {"path": "/healthcheck", "port": 8000}
        assert probe not in engine
    # the Service targets the HTTP container's port first (the servingEndpoints output) and the engine's gRPC
    assert [(p["name"], p["targetPort"]) for p in jetstream.service["spec"]["ports"]] == [("http", 8000),
                                                                                           ("grpc", 9000)]
    assert access_facts(parse_stack(shipped("jetstream")).workloads[0], "default")["endpoint"] == \
        "http://jetstream-llama-405b-svc.default.svc.cluster.local:8000"


@pytest.mark.slow
def test_the_jetstream_leaderworkerset_is_valid_for_the_crd_the_webhook_and_the_pod_schema(jetstream):
    assert lws_schema_errors(jetstream.lws)["v0.10.0"] == []
    assert lws_rule_errors(jetstream.lws, "v0.10.0") == []
    assert pod_schema_errors(pod_from_template(leader(jetstream.lws))) == {"1.29": [], "1.34": []}
    # a service backend's leader with a sidecar, on a v5e host (sized servers): valid too
    args = {"workload": {"name": "shared", "mode": "service", "service": {"clients": ["alice"], "leader": "tpu"},
                         "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"},
                         "sidecars": [{"name": "exporter", "image": HTTP_IMAGE, "ports": [9100],
                                       "command": ["/exporter"], "args": ["--port=9100"]}]},
            "tpu_type": "v5litepod-16", "slices": 2}
    lws = validate_args(args).objects.primary
    assert lws_schema_errors(lws)["v0.10.0"] == [] and lws_rule_errors(lws, "v0.10.0") == []
    assert pod_schema_errors(pod_from_template(leader(lws))) == {"1.29": [], "1.34": []}


def test_args_without_a_command_go_to_the_image_entrypoint_and_with_one_after_it():
    objects = objects_of(serving_args(command=None, args=["model_name=llama", "steps=1"]))
    server = leader(objects.primary)["spec"]["containers"][0]
    assert server["args"] == ["model_name=llama", "steps=1"] and "command" not in server
    objects = objects_of(serving_args(command=["python3", "-m", "srv"], args=["--port=8000", "a b"]))
    server = leader(objects.primary)["spec"]["containers"][0]
    assert server["command"][-1] == "python3 -m srv --port=8000 'a b'" and "args" not in server
    assert problems_of(serving_args(command="set -e\nserve", args=["--x"])).keys() == {"workload.args"}


def test_a_training_head_runs_sidecars_as_native_sidecars_so_its_job_still_completes():
    st = parsed("dev", workloads=[{**shipped("dev")[f"{P}workloads"][0],
                                   "sidecars": [{"name": "metrics", "image": HTTP_IMAGE, "ports": [9100],
                                                 "args": ["--listen=:9100"], "env": {"MODE": "head"},
                                                 "resources": {"requests": {"cpu": "1"}}}]}])
    w = st.workloads[0]
    jobset = build_pathways_jobset(w, Placement.of(st, w))
    head = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert [c["name"] for c in head["initContainers"]] == ["pathways-proxy", "pathways-rm", "metrics"]
    sidecar = head["initContainers"][2]
    assert sidecar["restartPolicy"] == "Always" and sidecar["args"] == ["--listen=:9100"]
    assert sidecar["ports"] == [{"containerPort": 9100, "protocol": "TCP"}]
    assert env_of(sidecar) == {"MODE": "head"} and sidecar["resources"] == {"requests": {"cpu": "1"}}
    assert [c["name"] for c in head["containers"]] == [w.container_name]
    assert jobset_schema_errors(jobset) == {"v0.8.2": [], "v0.12.0": []}


@pytest.mark.parametrize("sidecars, path, fragment", [
    ([{"name": "jax-tpu", "image": HTTP_IMAGE}], "workload.sidecars[0].name", "containerName"),
    ([{"name": "pathways-proxy", "image": HTTP_IMAGE}], "workload.sidecars[0].name", "Pathways container"),
    ([{"name": "a", "image": HTTP_IMAGE}, {"name": "a", "image": HTTP_IMAGE}], "workload.sidecars[1].name",
     "another sidecar"),
    ([{"name": "a", "image": HTTP_IMAGE, "ports": [29001]}], "workload.sidecars[0].ports[0]", "Pathways servers"),
    ([{"name": "a", "image": HTTP_IMAGE, "ports": [29000]}], "workload.sidecars[0].ports[0]", "Pathways servers"),
    ([{"name": "a", "image": HTTP_IMAGE, "ports": [9000]}, {"name": "b", "image": HTTP_IMAGE, "ports": [9000]}],
     "workload.sidecars[1].ports[0]", "sidecar 'a'"),
    ([{"name": "a", "image": HTTP_IMAGE, "ports": [70000]}], "workload.sidecars[0].ports", "1-65535"),
    ([{"name": "a", "image": HTTP_IMAGE, "env": {"LWS_LEADER_ADDRESS": "x"}}],
     "workload.sidecars[0].env.LWS_LEADER_ADDRESS", "LeaderWorkerSet controller"),
    ([{"name": "a", "image": "nginx:latest"}], "workload.sidecars[0].image", ""),
    ([{"name": "a", "image": HTTP_IMAGE, "command": []}], "workload.sidecars[0].command", "empty"),
    ([{"name": "a", "image": HTTP_IMAGE, "command": "  "}], "workload.sidecars[0].command", "empty"),
    ([{"name": "a", "image": HTTP_IMAGE, "command": "python3 -c 'x"}], "workload.sidecars[0].command",
     "cannot be split into words"),
], ids=["user-name", "pathways-name", "twice", "rm-port", "proxy-port", "port-twice", "port-range", "lws-env",
        "latest", "empty-command", "blank-command", "unclosed-quote"])
def test_bad_sidecars_are_refused_at_their_path(sidecars, path, fragment):
    problems = problems_of(serving_args(containerName="jax-tpu", sidecars=sidecars))
    assert path in problems and fragment in problems[path], problems


@pytest.mark.parametrize("command, argv", [
    ("python3 -m server.main", ["python3", "-m", "server.main"]),
    ("python3 -c 'print(1)' --flag=\"a b\"", ["python3", "-c", "print(1)", "--flag=a b"]),
    (["python3", "-m", "server.main"], ["python3", "-m", "server.main"]),
], ids=["documented-string", "quoted-words", "list"])
def test_a_sidecar_command_is_a_string_split_as_a_shell_would_or_a_list(command, argv):
    """The documented contract writes `command: python3 -m server.main`; Kubernetes takes an argument list."""
    objects = objects_of(serving_args(sidecars=[{"name": "jetstream-http", "image": HTTP_IMAGE, "command": command,
                                                 "ports": [8000]}]))
    [http] = [c for c in leader(objects.primary)["spec"]["containers"] if c["name"] == "jetstream-http"]
    assert http["command"] == argv


def test_a_service_backend_leader_takes_sidecars_but_no_args():
    args = {"workload": {"name": "shared", "mode": "service", "service": {"clients": ["alice"]},
                         "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"},
                         "sidecars": [{"name": "exporter", "image": HTTP_IMAGE, "ports": [9100]}]},
            "tpu_type": "v6e-16", "slices": 2}
    objects = objects_of(args)
    assert [c["name"] for c in leader(objects.primary)["spec"]["containers"]] == ["pathways-rm", "exporter"]
    args["workload"]["args"] = ["--x"]
    assert "workload.args" in problems_of(args)


def test_a_jax_workload_refuses_sidecars_with_the_reason():
    with pytest.raises(ConfigError) as caught:
        parsed("jax", workloads=[{**shipped("jax")[f"{P}workloads"][0],
                                  "sidecars": [{"name": "a", "image": HTTP_IMAGE}]}])
    [problem] = [p for p in caught.value.problems if p.path.endswith("sidecars")]
    assert "no head" in problem.message


# --- the IFRT proxy on the pod network --------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["serve", "jetstream"])
def test_every_pod_network_proxy_and_its_in_pod_client_use_insecure_grpc_credentials(stack):
    for objects in stack_objects(stack).values():
        pods = [leader(objects.lws)["spec"]] + [d["spec"]["template"]["spec"] for d, _ in objects.clients.values()]
        proxies = [c for pod in pods for c in pod["containers"] if c["name"] == "pathways-proxy"]
        assert proxies and all(env_of(c)[IFRT_PROXY_INSECURE_ENV] == "true" for c in proxies)
        assert all(not pod.get("hostNetwork") for pod in pods)
        if objects.service is not None:  # the model server is the proxy's client in the same pod
            server = leader(objects.lws)["spec"]["containers"][0]
            assert env_of(server)[IFRT_PROXY_INSECURE_ENV] == "true"
            assert env_of(server)["JAX_BACKEND_TARGET"] == "grpc://localhost:29000"


def test_the_jobset_layout_keeps_alts_on_the_host_network():
    st = parsed("dev")
    jobset = build_pathways_jobset(st.workloads[0], Placement.of(st, st.workloads[0]))
    head = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert head["hostNetwork"] is True
    assert all(IFRT_PROXY_INSECURE_ENV not in env_of(c) for c in head["initContainers"] + head["containers"])


def test_a_pathways_release_older_than_the_insecure_credentials_proxy_is_refused_on_the_pod_network():
    problems = problems_of(serving_args(pathways={"version": "jax-0.5.3", "gcsScratch": "gs://acme-pw/tmp"}))
    assert "ALTS" in problems["workload.pathways.version"] and "jax-0.9.0" in problems["workload.pathways.version"]
    validate_args(serving_args(pathways={"version": "20260128-jax_0.9.0", "gcsScratch": "gs://acme-pw/tmp"}))
    # our value is the one that works; a user value would be a second, conflicting one
    problems = problems_of(serving_args(env={IFRT_PROXY_INSECURE_ENV: "yes"}))
    assert f"workload.env.{IFRT_PROXY_INSECURE_ENV}" in problems


def test_clients_get_their_own_proxy_never_the_model_servers():
    facts = {name: access_facts(w, "default") for name, w in
             ((w.name, w) for w in parse_stack(shipped("serve")).workloads)}
    assert "jax_backend_target" not in facts["llama-serve"]  # that proxy belongs to the model server
    assert facts["shared-pw"]["client_targets"] == {
        c: f"grpc://shared-pw-proxy-{c}.default.svc.cluster.local:29000" for c in ("alice", "bob")}
    assert all(f"{IFRT_PROXY_INSECURE_ENV}=true" in cmd for cmd in facts["shared-pw"]["client_port_forward_commands"]
               .values())


# --- the head's resources on a TPU VM ---------------------------------------------------------------------------


@pytest.mark.parametrize("machine", sorted(TPU_HOSTS))
def test_pathways_servers_on_a_tpu_vm_leave_the_worker_its_host(machine):
    alloc = gke_allocatable(TPU_HOSTS[machine])
    for proxy in (True, False):
        sizes = tpu_head_server_sizes(machine, proxy=proxy)
        cpu = sum(s["cpu"] for s in sizes.values())
        memory = sum(s["memory"] for s in sizes.values())
        assert cpu * 1000 <= alloc.millicores * TPU_HEAD_SHARE
        assert memory <= alloc.memory_bytes * TPU_HEAD_SHARE
        for name, size in sizes.items():  # never more than XPK's size
            assert all(size[k] <= SERVER_SIZES[name][k] for k in ("cpu", "memory"))


def test_a_v5e_leader_no_longer_reserves_141_gb_and_a_cpu_leader_keeps_xpks_sizes():
    objects = objects_of({**serving_args(), "tpu_type": "v5litepod-16"})
    containers = by_name(leader(objects.primary)["spec"]["containers"])
    memory = sum(parse_quantity(containers[c]["resources"]["limits"]["memory"]) for c in ("pathways-proxy",
                                                                                          "pathways-rm"))
    assert memory <= gke_allocatable(TPU_HOSTS["ct5lp-hightpu-4t"]).memory_bytes * TPU_HEAD_SHARE
    objects = objects_of(serving_args(serving={"port": 8000, "leader": "cpu"}))
    containers = by_name(leader(objects.primary)["spec"]["containers"])
    assert containers["pathways-proxy"]["resources"] == {"limits": {"cpu": "16", "memory": "100G"}}
    assert containers["pathways-rm"]["resources"] == {"limits": {"cpu": "8", "memory": "32G"}}


def test_sidecar_requests_count_toward_the_head_fitting_its_node():
    big = [{"name": "cache", "image": HTTP_IMAGE, "resources": {"requests": {"memory": "700Gi"}}}]
    problems = problems_of(serving_args(sidecars=big))
    assert "cannot hold it" in problems["workload.serving.leader"]


# --- PathwaysServing takes an image built in the same program ----------------------------------------------------


def test_a_standalone_pathways_serving_takes_its_image_and_a_sidecar_image_from_outputs():
    built = "us-docker.pkg.dev/acme/serve/server:build-9"

    def program():
        args = serving_args(image=pulumi.Output.from_input(built), env={"RUN": pulumi.Output.from_input("r9")},
                            sidecars=[{"name": "http", "ports": [8000],
                                       "image": pulumi.Output.from_input(HTTP_IMAGE)}])
        PathwaysServing("chat", args)

    plan = run(program, stack="dev", project="ml")
    (lws,) = plan.of_type(LWS)
    containers = by_name(lws.inputs["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"])
    assert containers["jax-tpu"]["image"] == built and {"name": "RUN", "value": "r9"} in containers["jax-tpu"]["env"]
    assert containers["http"]["image"] == HTTP_IMAGE
    assert "pgke-output-" not in plan.dumps()


def test_an_invalid_output_image_fails_naming_its_path():
    def program():
        PathwaysServing("chat", serving_args(image=pulumi.Output.from_input("nginx:latest")))

    with pytest.raises(Exception, match="workload.image"):
        run(program, stack="dev", project="ml")


# --- Kueue and long LeaderWorkerSet names -----------------------------------------------------------------------


def long_serving_stack(name, kueue):
    config = shipped("serve")
    w = next(w for w in config[f"{P}workloads"] if w["mode"] == "serving")
    w["name"] = name
    w["serving"] = {**w["serving"], "replicas": 1}
    config[f"{P}kueue"] = kueue
    return config


@pytest.mark.parametrize("length, kueue, refused", [
    (45, {"enabled": True, "version": "v0.17.5"}, True),
    (KUEUE_LWS_NAME_LIMIT + 1, {"enabled": True, "version": "v0.17.1"}, True),
    (KUEUE_LWS_NAME_LIMIT, {"enabled": True, "version": "v0.17.5"}, False),
    (45, {"enabled": True, "version": "v0.18.0"}, False),
    (45, {"enabled": True}, False),  # the default Kueue
    (45, {"enabled": False}, False),  # no Kueue, no Kueue labels (a version with Kueue off is refused: config/checks.py)
])
def test_a_long_serving_name_with_kueue_works_or_is_refused_with_the_reason(length, kueue, refused):
    name = ("llama-" + "x" * 60)[:length]
    config = long_serving_stack(name, kueue)
    if not refused:
        parse_stack(config)
        return
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    [problem] = [p for p in caught.value.problems if p.path.endswith(".name")]
    assert "raise kueue.version" in problem.message and "kueue#10032" in problem.message


def test_the_kueue_name_rule_is_one_pure_function():
    assert kueue_lws_name_problem("v0.17.5", "x" * 39) is None
    assert "40 characters" in kueue_lws_name_problem("v0.17.5", "x" * 40)
    assert kueue_lws_name_problem("v0.19.5", "x" * 50) is None


# --- current controllers, one default each, and the pin-change rule ---------------------------------------------


def test_the_config_defaults_are_the_releases_defaults_and_current():
    assert JobSetConfig().version == RELEASES["jobset"].default == "v0.12.0"
    assert KueueConfig().version == RELEASES["kueue"].default
    assert KueueConfig().version >= "v0.18.0"  # LWS names past 39 characters
    assert LwsConfig().version == RELEASES["lws"].default == "v0.10.0"


@pytest.mark.parametrize("addon, old, new, allowed", [
    ("jobset", "v0.10.1", "v0.12.0", True),
    ("jobset", "v0.12.0", "v0.10.1", False),
    ("kueue", "v0.17.1", "v0.19.5", True),
    ("kueue", "v0.19.5", "v0.19.2", True),  # a patch within one minor: same API
    ("kueue", "v0.19.5", "v0.18.3", False),
    ("lws", "v0.10.0", "v0.9.2", False),
    ("lws", "v0.10.0", "v0.10.0", True),
])
def test_a_pin_may_move_forward_or_within_its_minor_never_back_a_minor(addon, old, new, allowed):
    change = release_change(addon, old, new)
    assert (change.refused is None) is allowed
    if not allowed:
        assert "downgrade" in change.refused and old in change.refused
    elif old != new:
        assert change.effects[0].startswith(f"{addon}: server-side apply of the {new} release manifest")


def test_crossing_kueue_v0_18_says_what_happens_to_leaderworkerset_tracking():
    effects = release_change("kueue", "v0.17.1", "v0.19.5").effects
    assert any("WorkloadIdentifierAnnotations" in e for e in effects)
    assert not any("WorkloadIdentifierAnnotations" in e for e in release_change("kueue", "v0.18.0", "v0.19.5").effects)


@pytest.mark.slow
def test_the_plan_diff_refuses_a_controller_downgrade_past_a_minor_and_nothing_else(stack_plans):
    from pathways_gke.plan.diff import diff_plans, render_text
    from pathways_gke.plan.engine import plan_config

    current = stack_plans("prod")  # JobSet v0.12.0, Kueue v0.19.5
    config = shipped("prod")
    config[f"{P}jobset"] = {"version": "v0.10.1"}
    config[f"{P}kueue"] = {"enabled": True, "version": "v0.19.2"}  # a patch back within v0.19: allowed
    older = plan_config(config, stack="prod")
    down = diff_plans(current, older)
    [(urn, action, refusal)] = down.refused  # pulumi-kubernetes replaces a ConfigMap on a data change
    assert (action, refusal.rule, refusal.paths) == ("replace", "controller-downgrade", ('data["jobset.version"]',))
    assert urn.endswith("::pw-prod-services-ready")
    # the API server would accept the older manifest: the refusal is this product's policy, labelled so
    assert down.world_refused == [] and len(down.policy_refused) == 1
    text = render_text(down)
    assert "REFUSED BY POLICY replace of pw-prod-services-ready" in text and "would apply it" in text
    assert "1 refused by pathways-gke POLICY" in text and "1 REFUSED" not in text
    assert diff_plans(older, current).refused == []  # the upgrade back is a planned change


def test_a_colocated_jobset_head_on_a_v5e_host_is_sized_by_the_same_rule():
    v5e = {"name": "main", "type": "v5e", "topology": "4x4", "slices": 1, "zone": "us-east5-a"}
    st = parsed("dev", tpuPools=[v5e], workloads=[{**shipped("dev")[f"{P}workloads"][0], "mode": "colocated"}])
    w = st.workloads[0]
    head = build_pathways_jobset(w, Placement.of(st, w))["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    servers = by_name(head["spec"]["initContainers"])
    sizes = tpu_head_server_sizes("ct5lp-hightpu-4t")
    for name in ("pathways-proxy", "pathways-rm"):
        limits = servers[name]["resources"]["limits"]
        assert {k: parse_quantity(v) for k, v in limits.items()} == sizes[name]
    assert sum(sizes[n]["memory"] for n in sizes) < 132 * 10**9  # XPK's 100 G + 32 G would not be left alone


@pytest.mark.slow
def test_in_a_cluster_a_sidecar_image_and_env_may_be_outputs():
    from tests.test_outputs import containers, no_stand_in_anywhere, plan_with

    def edit(args):
        args["workloads"][0]["sidecars"] = [{"name": "tb", "image": pulumi.Output.from_input(HTTP_IMAGE),
                                             "env": {"RUN": pulumi.Output.from_input("r7")}, "ports": [6006]}]

    plan = plan_with(edit)
    head = plan.of_type("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet")[0].inputs["spec"]["replicatedJobs"][0]
    [tb] = [c for c in head["template"]["spec"]["template"]["spec"]["initContainers"] if c["name"] == "tb"]
    assert tb["image"] == HTTP_IMAGE and tb["env"] == [{"name": "RUN", "value": "r7"}]
    assert containers(plan)  # the user container is still there
    no_stand_in_anywhere(plan)


def test_a_standalone_pathways_serving_applies_the_kueue_name_rule_when_queued():
    name = "llama-" + "x" * 40  # 46 characters
    args = {**serving_args(name=name), "queue_name": "pathways-queue", "kueue_version": "v0.17.5"}
    assert "kueue#10032" in problems_of(args)["workload.name"]
    validate_args({**args, "kueue_version": "v0.19.5"})
    validate_args({k: v for k, v in args.items() if k != "queue_name"})  # not queued: no Kueue labels
    assert "workload.name" not in problems_of({**args, "kueue_version": "v0.9.0"})
    assert "older than v0.17.0" in problems_of({**args, "kueue_version": "v0.9.0"})["kueue_version"]


@pytest.mark.slow
def test_a_kueue_bump_across_minors_updates_its_install_in_place_and_replaces_only_the_readiness_marker(stack_plans):
    from pathways_gke.plan.diff import diff_plans
    from pathways_gke.plan.engine import plan_config

    config = shipped("prod")
    config[f"{P}kueue"] = {"enabled": True, "version": "v0.17.1"}
    old = plan_config(config, stack="prod")
    new = stack_plans("prod")  # the default, v0.19.5
    diff = diff_plans(old, new)
    assert not diff.added and not diff.removed and diff.refused == []
    assert {c.name for c in diff.changed} == {"pw-prod-services-kueue", "pw-prod-services-ready"}
    # pulumi-kubernetes replaces a ConfigMap on a data change (provider/pkg/provider/diff.go): the readiness
    # marker, which records the version, is replaced; the install itself is an in-place server-side apply
    assert [c.name for c in diff.replaced] == ["pw-prod-services-ready"]
    assert release_change("kueue", "v0.17.1", "v0.19.5").refused is None


@pytest.mark.parametrize("kind", ["ResourceFlavor", "ClusterQueue", "LocalQueue", "AdmissionCheck",
                                  "ProvisioningRequestConfig"])
def test_every_supported_kueue_stores_v1beta2_so_an_upgrade_migrates_nothing(kind):
    """The upgrade notes' claim, read from the reference CRDs of the oldest-supported minor and the default's."""
    import yaml

    from tests.support.crd import kueue_crd

    for version in ("v0.17.1", "v0.19.2"):
        crd = yaml.load(kueue_crd(version, kind).read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        stored = [v["name"] for v in crd["spec"]["versions"] if v["storage"]]
        served = sorted(v["name"] for v in crd["spec"]["versions"] if v["served"])
        assert stored == ["v1beta2"] and served == ["v1beta1", "v1beta2"], (version, kind)
