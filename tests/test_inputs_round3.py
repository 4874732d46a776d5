"""Every input a user types, round 3 (issue 35): machine types, ranges, merge keys, sidecar values, deep nesting,
pipes, and a password in a URL. Each is judged by the rule of the system it goes to (Compute Engine's custom
machine types, GKE's Arm taint and secondary ranges, yaml.v3's merge keys, Kubernetes' port names and quantities,
etcd's request limit) and refused with the key path, the bad value and what is allowed, or accepted."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
import yaml

from pathways_gke import catalog, cli
from pathways_gke.config import parse_stack
from pathways_gke.config.stack import stack_from_cli
from pathways_gke.config.stack_file import MAX_VALUE_DEPTH, NESTING_MESSAGE, parse_stack_yaml
from pathways_gke.errors import ConfigError, without_credentials
from tests.conftest import ROOT
from tests.support.stacks import P, merged, shipped, stack


def problems_of(config: dict) -> list[str]:
    try:
        parse_stack(config)
    except ConfigError as error:
        return [str(p) for p in error.problems]
    return []


def refused_at(config: dict, path: str, *fragments: str) -> str:
    problems = problems_of(config)
    line = next((p for p in problems if p.startswith(f"{path}:") and all(f in p for f in fragments)), None)
    assert line is not None, f"no problem at {path} says all of {fragments}: {problems}"
    return line


def with_cpu_machine(machine: str, base: str = "dev", **sections) -> dict:
    config = merged(base, cpuPool={"machineType": machine}, **sections)
    return config


# --- 1. custom machine types: Compute Engine's rules per family ----------------------------------------------

@pytest.mark.parametrize("machine, fragments", [
    ("custom-3-12288", ("3 vCPUs", "1 or an even number up to 96")),  # N1: 1 or even
    ("custom-98-200704", ("98 vCPUs",)),
    ("n2-custom-34-65536", ("34 vCPUs", "multiple of 4 up to 128")),  # N2: even to 32, then multiples of 4
    ("n2-custom-132-540672", ("132 vCPUs",)),
    ("n2d-custom-6-12288", ("6 vCPUs", "2, 4, 8, 16, 32, 48, 64, 80 or 96")),
    ("e2-custom-1-4096", ("1 vCPUs", "even number from 2 to 32")),
    ("e2-custom-34-65536", ("34 vCPUs",)),
    ("n2-custom-8-32100", ("32100 MB", "multiple of 256 MB")),
    ("n2-custom-8-2048", ("at least 512 MB per vCPU", "4096 MB")),
    ("custom-4-3072", ("at least 922 MB per vCPU",)),
    ("n2-custom-8-81920", ("more than 8192 MB per vCPU", "add -ext")),
    ("custom-2-16384", ("more than 6656 MB per vCPU", "add -ext")),
    ("e2-custom-8-81920", ("at most 8192 MB per vCPU", "no extended memory")),
    ("e2-custom-8-16384-ext", ("extended memory (-ext)",)),
    ("n2-custom-8-700416-ext", ("at most 638976 MB",)),
    ("n2d-custom-8-800768-ext", ("at most 786432 MB",)),
    ("c2-custom-8-32768", ("family 'c2'", "no custom shapes", "n1, n2, n2d, e2, n4")),
    ("c3-custom-8-32768", ("no custom shapes",)),
    ("m1-custom-8-32768", ("no custom shapes",)),
    ("n1-custom-8-32768", ("no family prefix", "custom-VCPUS-MEMORY_MB")),
    ("e2-custom-micro-4096", ("1024 to 2048 MB",)),
    ("n2-custom-small-2048", ("only E2 has shared-core custom types",)),
    ("n2-medium", ("shared-core sizes are e2-micro",)),
])
def test_custom_machine_types_compute_engine_refuses_are_refused_with_the_rule(machine, fragments):
    """Source: Compute Engine's custom machine type helper samples (catalog.CustomShapeRule cites them)."""
    config = with_cpu_machine(machine)
    config.pop(P + "workloads")
    refused_at(config, "cpuPool.machineType", repr(machine), *fragments)


@pytest.mark.parametrize("machine, vcpus, memory_gib", [
    ("n2-custom-8-32768", 8, 32), ("n2-custom-36-147456", 36, 144), ("n2-custom-128-524288", 128, 512),
    ("n2-custom-8-81920-ext", 8, 80), ("custom-1-6656", 1, 6.5), ("custom-96-638976-ext", 96, 624),
    ("n2d-custom-96-786432-ext", 96, 768), ("e2-custom-32-131072", 32, 128), ("e2-custom-2-1024", 2, 1),
    ("n4-custom-16-65536", 16, 64), ("e2-custom-micro-1024", 0.25, 1), ("e2-custom-medium-8192", 1, 8),
    ("e2-micro", 0.25, 1), ("e2-small", 0.5, 2), ("e2-medium", 1, 4), ("f1-micro", 0.2, 0.6), ("g1-small", 0.5, 1.7),
    ("n2-standard-64", 64, 256), ("n1-highmem-8", 8, 52),
])
def test_the_catalog_sizes_predefined_shared_core_and_custom_types_from_their_names(machine, vcpus, memory_gib):
    assert catalog.cpu_machine_type_problem(machine) is None
    sized = catalog.cpu_machine(machine)
    assert sized is not None and (sized.vcpus, sized.memory_gib) == (vcpus, pytest.approx(memory_gib))


@pytest.mark.parametrize("machine", ["m1-megamem-96", "c4-standard-48-lssd", "a2-ultragpu-1g", "x4-megamem-960-metal",
                                     "n2-custom-34-65536"])
def test_a_machine_the_catalog_cannot_size_has_no_size(machine):
    assert catalog.cpu_machine(machine) is None


@pytest.mark.parametrize("machine", ["e2-medium", "e2-small", "e2-micro", "e2-custom-medium-8192", "n2-custom-8-32768",
                                     "custom-16-65536", "n2-custom-32-131072", "e2-custom-32-131072"])
def test_a_cpu_pool_that_can_never_run_the_head_is_refused(machine):
    """The Pathways servers alone request 24 CPU / 132 GB: none of these holds them, so the machine is blamed (nothing
    the workload says can make the head fit)."""
    refused_at(with_cpu_machine(machine), "cpuPool.machineType", machine, "too small for workload train's Pathways head",
               "for the Pathways servers alone")


@pytest.mark.parametrize("machine", ["m1-megamem-96", "m3-ultramem-64", "c4-standard-48-lssd", "a2-ultragpu-1g"])
def test_a_head_on_a_machine_the_catalog_cannot_size_is_refused_with_that_reason(machine):
    line = refused_at(with_cpu_machine(machine), "workloads[0].mode", machine, "no size in the catalog")
    assert "n2-standard-64" in line  # what is allowed


@pytest.mark.parametrize("machine", ["n2-custom-48-262144", "custom-48-262144", "n2-custom-32-327680-ext",
                                     "n2d-custom-48-262144", "n4-custom-64-262144"])
def test_a_valid_custom_type_that_holds_the_head_is_accepted_with_kueue_on(machine):
    """Its CPU and memory are in its name: the ClusterQueue's CPU quota is derived from them."""
    from pathways_gke.addons.kueue import cpu_pool_quota

    config = with_cpu_machine(machine, kueue={"enabled": True})
    assert problems_of(config) == []
    quota = cpu_pool_quota(parse_stack(config))
    machine_size = catalog.cpu_machine(machine)
    assert machine_size is not None
    nodes = config[P + "cpuPool"]["maxNodes"]
    cores = float(quota["cpu"].removesuffix("m")) / (1000 if quota["cpu"].endswith("m") else 1)
    assert machine_size.vcpus * nodes * 0.95 < cores < machine_size.vcpus * nodes


@pytest.mark.parametrize("machine", ["t2a-standard-48", "c4a-standard-72", "c4a-highmem-72", "n4a-standard-64",
                                     "t2a-standard-1"])
def test_an_arm_cpu_pool_is_refused_gke_taints_arm_nodes(machine):
    config = with_cpu_machine(machine)
    config.pop(P + "workloads")  # even with no head: the controllers run on the CPU pool too
    refused_at(config, "cpuPool.machineType", repr(machine), "Arm", "kubernetes.io/arch=arm64:NoSchedule",
               "x86")


def test_the_arm_families_are_compute_engine_machine_families():
    assert set(catalog.ARM_MACHINE_FAMILIES) <= set(catalog.CPU_MACHINE_FAMILIES)


# --- 3. secondary ranges ---------------------------------------------------------------------------------------

def test_one_secondary_range_for_pods_and_services_is_refused():
    config = merged("dev", cluster={"subnetwork": "gke-nodes", "podsRangeName": "gke-range",
                                    "servicesRangeName": "gke-range"})
    refused_at(config, "cluster.servicesRangeName", "'gke-range'", "both Pods and Services")


def test_two_secondary_ranges_are_accepted():
    config = merged("dev", cluster={"subnetwork": "gke-nodes", "podsRangeName": "gke-pods",
                                    "servicesRangeName": "gke-services"})
    assert problems_of(config) == []


# --- 4. yaml.v3 merge keys, implemented by the reader --------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    # in a list of merges the FIRST mapping's keys win (yaml.v3 decode.go merge: a key merged once is kept)
    ("a: &a {x: 1, y: 1}\nb: &b {x: 2, z: 2}\nc:\n  <<: [*b, *a]\n", {"x": 2, "z": 2, "y": 1}),
    ("a: &a {x: 1, y: 1}\nb: &b {x: 2, z: 2}\nc:\n  <<: [*a, *b]\n", {"x": 1, "y": 1, "z": 2}),
    # an explicit key wins over a merged one, written before or after the merge
    ("a: &a {x: 1, y: 1}\nc:\n  x: 5\n  <<: *a\n", {"x": 5, "y": 1}),
    ("a: &a {x: 1, y: 1}\nc:\n  <<: *a\n  x: 5\n", {"x": 5, "y": 1}),
    # a merged mapping's own keys come before its own merges, and all of them after earlier merges
    ("a: &a {x: 1, <<: {y: 1, x: 9}}\nb: &b {y: 2, w: 2}\nc:\n  <<: [*a, *b]\n", {"x": 1, "y": 1, "w": 2}),
    ("a: &a {<<: {q: 1}}\nb: &b {q: 2}\nc:\n  <<: [*b, *a]\n", {"q": 2}),
    # an inline mapping, an empty list of merges
    ("c:\n  <<: {x: 1}\n  y: 2\n", {"y": 2, "x": 1}),
    ("c:\n  <<: []\n  x: 1\n", {"x": 1}),
    # a quoted "<<" is an ordinary key (yaml.v3 isMerge: plain or !!merge only)
    ("c:\n  '<<': {x: 1}\n", {"<<": {"x": 1}}),
    # keys compare by decoded value: the integer 1 and the text "1" are two keys
    ("a: &a {1: merged}\nc:\n  <<: *a\n  '1': own\n", {"1": "own", 1: "merged"}),
])
def test_merge_keys_follow_yaml_v3(text, expected):
    assert parse_stack_yaml(text)["c"] == expected


@pytest.mark.parametrize("text", [
    "c:\n  <<: 5\n",
    "c:\n  <<: ~\n",
    "c:\n  <<: text\n",
    "c:\n  <<: [5]\n",
    "c:\n  <<: [{x: 1}, [1]]\n",
    "s: &s [1, 2]\nc:\n  <<: *s\n",
    "s: &s text\nc:\n  <<: [*s]\n",
])
def test_a_merge_of_something_that_is_not_a_mapping_is_refused(text):
    with pytest.raises(ConfigError) as caught:
        parse_stack_yaml(text, "Pulumi.dev.yaml")
    assert "map merge requires map or sequence of maps" in caught.value.render()


def test_two_merge_keys_in_one_mapping_are_refused_as_yaml_v3_refuses_them():
    with pytest.raises(ConfigError) as caught:
        parse_stack_yaml("a: &a {x: 1}\nc:\n  <<: *a\n  <<: *a\n")
    assert "given twice" in caught.value.render()


def test_the_plan_takes_the_first_merged_mapping_as_pulumi_up_does(tmp_path):
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace(
        "  pathways-gke:cpuPool:\n    machineType: n2-standard-64\n",
        "  pathways-gke:cpuPool:\n    <<: [{machineType: n2-standard-80}, {machineType: n2-standard-64}]\n")
    assert "<<: [" in text
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(text)
    from pathways_gke.config.stack import load_stack_file

    assert load_stack_file(path).cpu_pool.machine_type == "n2-standard-80"


# --- 5. sidecar ports per layout, Kubernetes quantities --------------------------------------------------------

def jetstream_with_sidecar(**sidecar) -> dict:
    config = merged("jetstream")
    config[P + "workloads"][0]["sidecars"][0].update(sidecar)
    return config


@pytest.mark.parametrize("ports", [[8000, 8080], [8000, 8471], [8000, 29005, 29006]])
def test_a_serving_leader_sidecar_may_take_a_workers_port(ports):
    """The leader is on the pod network; the workers are other pods (render/serving_lws.py)."""
    assert problems_of(jetstream_with_sidecar(ports=ports)) == []


@pytest.mark.parametrize("port", [29000, 29001, 29002])
def test_a_serving_leader_sidecar_may_not_take_a_port_of_a_server_in_its_pod(port):
    line = refused_at(jetstream_with_sidecar(ports=[8000, port]), "workloads[0].sidecars[0].ports[1]", str(port),
                      "leader pod")
    assert "8471" not in line.partition("not allowed:")[2]


def test_a_jobset_head_sidecar_keeps_every_pathways_port_reserved():
    """JobSet pods are on the host network: a colocated head shares the TPU VM with a worker."""
    config = merged("dev")
    config[P + "workloads"][0]["sidecars"] = [{"name": "exporter", "image": "gcr.io/acme/exp:v1", "ports": [8471]}]
    refused_at(config, "workloads[0].sidecars[0].ports[0]", "8471", "host network")


@pytest.mark.parametrize("cpu", [2, 0.5, "2", "500m"])
def test_a_sidecar_takes_an_unquoted_cpu_like_the_main_container(cpu):
    config = jetstream_with_sidecar(resources={"requests": {"cpu": cpu, "memory": "1Gi"}})
    config[P + "workloads"][0]["resources"] = {"requests": {"cpu": cpu, "memory": "1Gi"}}
    assert problems_of(config) == []
    workload = parse_stack(config).workloads[0]
    assert workload.sidecars[0].resources.requests["cpu"] == workload.resources.requests["cpu"] == str(cpu)


def test_a_sidecar_quantity_that_is_not_one_is_refused_like_the_main_containers():
    refused_at(jetstream_with_sidecar(resources={"requests": {"cpu": "two"}}),
               "workloads[0].sidecars[0].resources.requests", "'two' is not a Kubernetes quantity")


# --- 8. port names, a leader on a TPU host, env size -----------------------------------------------------------

def service_ports(*ports) -> list[tuple[str, int]]:
    config = merged("jetstream")
    config[P + "workloads"][0]["serving"]["ports"] = list(ports)
    config[P + "workloads"][0]["sidecars"][0]["ports"] = [p["port"] for p in ports]
    stack_config = parse_stack(config)
    return stack_config.workloads[0].serving.port_list()


@pytest.mark.parametrize("ports", [
    ({"port": 8000}, {"port": 9000, "name": "serve"}),
    ({"port": 8000}, {"port": 9000, "name": "serve-8000"}, {"port": 9100, "name": "serve"}),
    ({"port": 8000}, {"port": 9000}, {"port": 9100, "name": "serve-9000"}),
    ({"port": 8000, "name": "serve-9000"}, {"port": 9000}, {"port": 9100, "name": "port-9000"}),
])
def test_unnamed_serving_ports_get_names_no_other_port_has(ports):
    names = [name for name, _ in service_ports(*ports)]
    assert len(set(names)) == len(names), names
    assert all(len(n) <= 15 for n in names)
    for given, (name, _) in zip(ports, service_ports(*ports)):
        if "name" in given:
            assert name == given["name"]


@pytest.mark.parametrize("name", ["a--b", "http--2", "-http", "http-", "1234", "x" * 16, "Http", "h_t"])
def test_port_names_kubernetes_refuses_are_refused(name):
    config = merged("jetstream")
    config[P + "workloads"][0]["serving"]["ports"] = [{"port": 8000, "name": name}]
    refused_at(config, "workloads[0].serving.ports[0].name", "not a port name", "no two '-' in a row")


@pytest.mark.parametrize("name", ["http", "h-2", "grpc-web", "a1", "x" * 15])
def test_port_names_kubernetes_takes_are_accepted(name):
    config = merged("jetstream")
    config[P + "workloads"][0]["serving"]["ports"] = [{"port": 8000, "name": name}]
    assert problems_of(config) == []


def test_a_serving_leader_on_a_tpu_host_the_catalog_cannot_size_is_refused():
    config = stack("jetstream", tpuPools=[{"name": "serve", "type": "tpu7x", "topology": "1x1x1", "slices": 1,
                                           "zone": "us-east5-b", "capacity": "on-demand"}],
                   cluster={**shipped("jetstream")[P + "cluster"], "version": "1.34.1-gke.2201000"})
    assert catalog.TPU_HOSTS.get("tpu7x-standard-1t") is None
    refused_at(config, "workloads[0].serving.leader", "tpu7x-standard-1t", "no size in the catalog", "leader: cpu")


def test_a_serving_leader_whose_servers_and_server_overflow_the_tpu_host_is_refused():
    config = merged("jetstream")
    config[P + "workloads"][0]["resources"] = {"requests": {"cpu": "170", "memory": "8Gi"},
                                               "limits": {"cpu": "170", "memory": "8Gi"}}
    refused_at(config, "workloads[0].serving.leader", "cannot hold it")


@pytest.mark.parametrize("size", [10 * 2**20, 1_600_000])
def test_an_env_value_past_etcds_request_limit_is_refused_without_showing_it(size):
    config = merged("dev")
    config[P + "workloads"][0]["env"] = {"BLOB": "s3cr3t" + "x" * size}
    line = refused_at(config, "workloads[0].env.BLOB", "etcd", "1.5 MiB", "3 MiB")
    assert "s3cr3t" not in line


def test_env_values_that_together_pass_the_limit_are_refused():
    config = merged("dev")
    config[P + "workloads"][0]["env"] = {f"PART_{i}": "x" * 400_000 for i in range(4)}
    problems = problems_of(config)
    assert any(p.startswith("workloads[0].env.PART_") and "totals 1.53 MiB" in p for p in problems), problems


# --- 6. logs: an unknown client is bad input ------------------------------------------------------------------

@pytest.fixture
def api():
    from tests.support.kube_api import KubeApi

    with KubeApi() as server:
        yield server


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_logs_of_a_serving_workload_with_a_client_proxy_role_exit_2_naming_the_roles(api, tmp_path, capsys):
    from tests.test_day2 import NS, lws_object, lws_pods

    lws = lws_object("llama-serve", ready=1, replicas=1)
    api.add(lws)
    for pod in lws_pods(lws, 0):
        api.add(pod)
    config = str(api.kubeconfig(tmp_path / "kubeconfig", namespace=NS))
    code, _, err = run(capsys, "logs", "llama-serve", "--role", "proxy-nobody", "--kubeconfig", config)
    assert code == 2 and "leader, worker" in err and "no client proxies" in err and "retry" not in err


@pytest.mark.slow
def test_logs_of_a_jobset_with_a_client_proxy_role_exit_2(api, tmp_path, capsys):
    from tests.test_day2 import NS, pathways_jobset

    api.add(pathways_jobset("train-run"))
    config = str(api.kubeconfig(tmp_path / "kubeconfig", namespace=NS))
    code, _, err = run(capsys, "logs", "train-run", "--role", "proxy-alice", "--kubeconfig", config)
    assert code == 2 and "head, worker" in err and "retry" not in err


# --- 7. deep nesting: one refusal on both readers -------------------------------------------------------------

def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.slow
@pytest.mark.parametrize("depth", [MAX_VALUE_DEPTH + 1, 3000, 20000])
def test_a_deeply_nested_value_is_refused_alike_offline_and_under_pulumi_up(depth, tmp_path, capsys):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text((ROOT / "stacks" / "Pulumi.dev.yaml").read_text() + f"  pathways-gke:secrets: {deep(depth)}\n")
    code, out, err = run(capsys, "plan", "--config", str(path), "--project-dir", str(ROOT))
    assert (code, out) == (2, "") and "Traceback" not in err
    offline = next(line for line in err.splitlines() if "pathways-gke:secrets" in line)
    assert offline.strip() == f"- pathways-gke:secrets: {NESTING_MESSAGE}"
    # under `pulumi up` the program reads the CLI's JSON string (Config.get_object) with the same reader
    flat = {"gcp:project": "acme-ml-dev", P + "cluster": json.dumps({"name": "pw", "location": "us-east5"}),
            P + "cpuPool": json.dumps({"zone": "us-east5-a"}), P + "secrets": deep(depth)}
    with pytest.raises(ConfigError) as caught:
        stack_from_cli(flat)
    assert [str(p) for p in caught.value.problems] == [f"pathways-gke:secrets: {NESTING_MESSAGE}"]


def test_nesting_up_to_the_limit_reaches_validation(tmp_path):
    flat = {"gcp:project": "acme-ml-dev", P + "cluster": json.dumps({"name": "pw", "location": "us-east5"}),
            P + "cpuPool": json.dumps({"zone": "us-east5-a"}), P + "secrets": deep(MAX_VALUE_DEPTH)}
    with pytest.raises(ConfigError) as caught:
        stack_from_cli(flat)
    assert NESTING_MESSAGE not in caught.value.render() and "secrets" in caught.value.render()


@pytest.mark.slow
def test_under_pulumi_up_the_program_refuses_deep_nesting_without_a_traceback():
    from pathways_gke.plan.engine import run_program
    from pathways_gke.program import main as program_main

    config = {"gcp:project": "acme-ml-dev", P + "cluster": json.dumps({"name": "pw", "location": "us-east5"}),
              P + "cpuPool": json.dumps({"zone": "us-east5-a"}), P + "workloads": deep(5000)}
    with pytest.raises(ConfigError) as caught:
        run_program(program_main, stack="dev", project="pathways-gke", config=config, secret_keys=[])
    assert f"pathways-gke:workloads: {NESTING_MESSAGE}" in caught.value.render()


# --- 8. a stack file from a pipe --------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_stack_file_from_a_fifo_is_read(tmp_path, capsys):
    fifo = tmp_path / "stack.fifo"
    os.mkfifo(fifo)
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_bytes()

    def feed():
        with open(fifo, "wb") as pipe:
            pipe.write(text)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        code, out, err = run(capsys, "plan", "--config", str(fifo), "--project-dir", str(ROOT), "--json")
    finally:
        writer.join(timeout=10)
    assert code == 0, err
    assert any(r["name"] == "pw-dev" for r in json.loads(out)["resources"])


@pytest.mark.slow
def test_a_stack_file_from_dev_fd_is_read(capsys):
    """`--config <(sops -d Pulumi.prod.yaml)`: the shell hands over /dev/fd/N, a link to a pipe."""
    if not Path("/dev/fd").is_dir():
        pytest.skip("no /dev/fd on this system")
    read, write = os.pipe()
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_bytes()
    writer = threading.Thread(target=lambda: (os.write(write, text), os.close(write)))
    writer.start()
    try:
        code, out, err = run(capsys, "plan", "--config", f"/dev/fd/{read}", "--project-dir", str(ROOT))
    finally:
        writer.join(timeout=10)
        os.close(read)
    assert code == 0 and "does not exist" not in err, err
    assert "pw-dev" in out


# --- 2. credentials are never printed -------------------------------------------------------------------------

PASSWORD = "hunter2-never-shown"
TOKEN_VALUE = "tok-never-shown-0123"


@pytest.mark.parametrize("text, shown", [
    (f"https://admin:{PASSWORD}@k8s.example:6443", "https://k8s.example:6443"),
    (f"https://admin:p@ss:{PASSWORD}@10.0.0.1/api", "https://10.0.0.1/api"),
    (f"http://{TOKEN_VALUE}@proxy.corp:3128", "http://proxy.corp:3128"),
    (f"socks5://u:{PASSWORD}@proxy:1080 and https://ok.example", "socks5://proxy:1080 and https://ok.example"),
    (f"https://h.example/m.yaml?token={TOKEN_VALUE}&v=1", "https://h.example/m.yaml?token=<redacted>&v=1"),
    (f'{{"url": "https://u:{PASSWORD}@h", "mail": "ops@acme.example"}}',
     '{"url": "https://h", "mail": "ops@acme.example"}'),
    ("no url here: ops@acme.example, key=value", "no url here: ops@acme.example, key=value"),
])
def test_urls_are_shown_without_their_credentials(text, shown):
    assert without_credentials(text) == shown


def kubeconfig_with(tmp_path: Path, server: str, **cluster) -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": server, **cluster}}],
        "users": [{"name": "u", "user": {"token": TOKEN_VALUE, "username": "admin", "password": PASSWORD}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": "ml"}}],
    }))
    return path


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["status"], ["status", "--json"], ["status", "train"],
                                  ["wait", "train", "--for", "completed", "--timeout", "1s"],
                                  ["logs", "train"], ["logs", "train", "--role", "proxy-x"]])
@pytest.mark.parametrize("where", ["server", "proxy-url", "environment"])
def test_day2_never_prints_a_credential_from_the_kubeconfig_or_the_environment(argv, where, tmp_path, capsys,
                                                                             monkeypatch):
    port = free_port()
    server = f"https://admin:{PASSWORD}@127.0.0.1:{port}" if where == "server" else f"https://127.0.0.1:{port}"
    cluster = {"proxy-url": f"http://proxyuser:{PASSWORD}@127.0.0.1:{free_port()}"} if where == "proxy-url" else {}
    if where == "environment":
        for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY"):
            monkeypatch.setenv(name, f"http://proxyuser:{PASSWORD}@127.0.0.1:{free_port()}")
    config = kubeconfig_with(tmp_path, server, **cluster)
    code, out, err = run(capsys, *argv, "--kubeconfig", str(config))
    assert code == 2 and "Traceback" not in err
    for secret in (PASSWORD, TOKEN_VALUE, "proxyuser", "admin:"):
        assert secret not in out + err, (secret, out + err)
    if where == "server":
        assert f"cannot reach the Kubernetes API server at https://127.0.0.1:{port}" in err


def secret_rich_stack(tmp_path: Path) -> Path:
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace(
        "      maxRestarts: 3\n",
        "      maxRestarts: 3\n"
        "      env:\n"
        f"        HTTPS_PROXY: http://proxyuser:{PASSWORD}@proxy.corp:3128\n"
        f"        MODEL_URL: https://hf.example/m?token={TOKEN_VALUE}\n")
    assert PASSWORD in text
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(text)
    return path


@pytest.mark.slow
def test_plan_diff_and_their_files_never_print_a_credential_in_a_url(tmp_path, capsys):
    path = secret_rich_stack(tmp_path)
    outputs = []
    for argv in (["plan", "--config", str(path)], ["plan", "--config", str(path), "--json"],
                 ["plan", "--config", str(path), "--out", str(tmp_path / "out")],
                 ["plan", "--config", str(path), "--critical-path"],
                 ["graph", "--config", str(path)], ["graph", "--config", str(path), "--format", "dot"],
                 ["diff", str(ROOT / "stacks" / "Pulumi.dev.yaml"), str(path)],
                 ["diff", str(ROOT / "stacks" / "Pulumi.dev.yaml"), str(path), "--json"],
                 ["diff", str(ROOT / "stacks" / "Pulumi.dev.yaml"), str(path), "--markdown"]):
        code, out, err = run(capsys, *argv, "--project-dir", str(ROOT))
        assert code in (0, 1), err
        outputs.append(out + err)
    outputs += [p.read_text() for p in (tmp_path / "out").iterdir()]
    for text in outputs:
        assert PASSWORD not in text and TOKEN_VALUE not in text and "proxyuser" not in text, text
    assert any("http://proxy.corp:3128" in text for text in outputs)  # the URL itself is shown


def test_a_config_error_never_prints_a_credential_in_a_url(tmp_path, capsys):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text((ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace(
        "version: v0.12.0", f"version: v0.12.0\n    manifest: https://u:{PASSWORD}@git.example/jobset.yaml"))
    code, out, err = run(capsys, "plan", "--config", str(path), "--project-dir", str(ROOT))
    assert code == 2 and PASSWORD not in out + err and "Traceback" not in err



def test_a_log_line_through_a_handler_bound_before_the_cli_ran_shows_no_credential():
    """cli.main adds this filter to the root logger's handlers (which hold the stream they were made with)."""
    import io
    import logging

    from pathways_gke.errors import RedactingFilter

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("pathways_gke.test.redaction")
    logger.addHandler(handler)
    try:
        logger.warning("fetching %s", f"https://u:{PASSWORD}@git.example/x")
    finally:
        logger.removeHandler(handler)
    assert "fetching https://git.example/x" in stream.getvalue() and PASSWORD not in stream.getvalue()
