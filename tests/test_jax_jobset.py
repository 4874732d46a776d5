"""The multi-controller JAX JobSet builder: what each pod gets on TPU multislice and on the CPU pool."""

from __future__ import annotations

import json

import pytest

from pathways_gke.catalog import GENERATIONS, resolve
from pathways_gke.naming import jax_managed_env
from pathways_gke.render.jax_jobset import (
    build_jax_jobset,
    coordinator_address,
    jax_layout,
)
from pathways_gke.config.placement import Placement
from tests.support.crd import jobset_schema_errors
from tests.support.pods import container_argv, container_env, pods
from tests.support.stacks import parsed

IMAGE = "us-docker.pkg.dev/acme/train:2026-11"


def render(workload: dict, tpu_pools=(), **sections) -> dict:
    st = parsed(tpuPools=list(tpu_pools), **sections, workloads=[
        {"name": "train", "runtime": "jax", "image": IMAGE, "command": "python3 train.py", **workload}])
    w = st.workloads[0]
    return build_jax_jobset(w, Placement.of(st, w), secret_name="train-env")


V5P_2x2x2_X2 = {"name": "main", "type": "v5p", "topology": "2x2x2", "slices": 2, "zone": "us-east5-a"}


def job(jobset: dict) -> dict:
    [rjob] = jobset["spec"]["replicatedJobs"]
    return rjob


def pod_spec(jobset: dict) -> dict:
    return job(jobset)["template"]["spec"]["template"]["spec"]


def container(jobset: dict) -> dict:
    [c] = pod_spec(jobset)["containers"]
    return c


def env_names(jobset: dict) -> list[str]:
    return [e["name"] for e in container(jobset)["env"]]


class TestTpuMultislice:
    jobset = staticmethod(lambda **kw: render({"tpuPool": "main", **kw}, [V5P_2x2x2_X2]))

    def test_one_job_per_slice_one_pod_per_tpu_vm(self):
        rjob = job(self.jobset())
        assert rjob["name"] == "workers"
        assert rjob["replicas"] == 2  # slices
        spec = rjob["template"]["spec"]
        assert (spec["parallelism"], spec["completions"], spec["completionMode"]) == (2, 2, "Indexed")  # v5p-16: 2 VMs
        assert spec["backoffLimit"] == 0

    def test_each_slice_gets_a_node_pool_of_its_own(self):
        rjob = job(self.jobset())
        assert rjob["template"]["metadata"]["annotations"] == {
            "alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"}

    def test_tpu_scheduling(self):
        spec = pod_spec(self.jobset())
        assert spec["nodeSelector"] == {
            "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
            "cloud.google.com/gke-tpu-topology": "2x2x2",
            "pathways-gke/tpu-group": "main",
        }
        assert container(self.jobset())["resources"] == {"limits": {"google.com/tpu": "4"}}
        assert {"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
        assert spec["hostNetwork"] is True and spec["dnsPolicy"] == "ClusterFirstWithHostNet"
        assert spec["restartPolicy"] == "Never"

    def test_the_ports_jax_uses_on_tpu(self):
        ports = {p["containerPort"]: p["name"] for p in container(self.jobset())["ports"]}
        assert ports == {8471: "tpu-runtime", 8080: "megascale", 8482: "jax-coordinator"}

    def test_each_pod_is_told_the_multislice_environment(self):
        jobset = self.jobset()
        seen = []
        for pod in pods(jobset):
            env = container_env(pod, pod.containers[0])
            seen.append((env["MEGASCALE_SLICE_ID"], env["MEGASCALE_NUM_SLICES"], env["JOB_COMPLETION_INDEX"]))
            assert env["MEGASCALE_COORDINATOR_ADDRESS"] == "train-workers-0-0.train"
            assert env["JAX_COORDINATOR_ADDRESS"] == "train-workers-0-0.train:8482"
            assert env["JAX_NUM_PROCESSES"] == env["JAX_PROCESS_COUNT"] == "4"
            assert env["PROCESSES_IN_JOB"] == "2"
            assert "JAX_PLATFORMS" not in env  # the TPU platform is the user's (and JAX's) choice
        assert seen == [("0", "2", "0"), ("0", "2", "1"), ("1", "2", "0"), ("1", "2", "1")]
        assert jobset["spec"]["coordinator"] == {"replicatedJob": "workers", "jobIndex": 0, "podIndex": 0}

    def test_a_single_slice_has_no_multislice_environment(self):
        jobset = render({"tpuPool": "main"}, [{**V5P_2x2x2_X2, "slices": 1}])
        assert not [n for n in env_names(jobset) if n.startswith("MEGASCALE_")]
        assert job(jobset)["replicas"] == 1

    def test_restarts_and_failure_policy(self):
        jobset = self.jobset(maxRestarts=3)
        policy = jobset["spec"]["failurePolicy"]
        assert policy["maxRestarts"] == 3
        assert policy["restartStrategy"] == "Recreate"
        # evictions (maintenance, spot preemption) restart the JobSet without using up maxRestarts
        assert policy["rules"] == [{"name": "disruption", "action": "RestartJobSetAndIgnoreMaxRestarts",
                                    "onJobFailureReasons": ["PodFailurePolicy"]}]
        assert job(jobset)["template"]["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"] == [
            {"type": "DisruptionTarget", "status": "True"}]

    def test_kueue_queue_label_only_when_kueue_is_on(self):
        assert "kueue.x-k8s.io/queue-name" not in self.jobset()["metadata"]["labels"]
        queued = render({"tpuPool": "main"}, [V5P_2x2x2_X2], kueue={"enabled": True})
        assert queued["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "pathways-queue"

    def test_spot_capacity_is_tolerated(self):
        jobset = render({"tpuPool": "main"}, [{**V5P_2x2x2_X2, "capacity": "spot"}])
        assert {"key": "cloud.google.com/gke-spot", "operator": "Exists",
                "effect": "NoSchedule"} in pod_spec(jobset)["tolerations"]

    def test_tpu7x_multi_host_selects_the_workload_policy(self):
        st = parsed(tpuPools=[V5P_2x2x2_X2], workloads=[
            {"name": "train", "runtime": "jax", "tpuPool": "main", "image": IMAGE, "command": "x"}])
        target = Placement(namespace="default", cpu_pool="cpu-np", tpu_group="ir",
                           tpu_type="tpu7x", tpu_topology="2x2x2", slices=2, placement_policy="pw-ir-wp")
        jobset = build_jax_jobset(st.workloads[0], target)
        assert pod_spec(jobset)["nodeSelector"]["cloud.google.com/placement-policy-name"] == "pw-ir-wp"


class TestCpu:
    def test_processes_on_the_cpu_pool_without_tpus(self):
        jobset = render({"jax": {"processes": 4}})
        spec = pod_spec(jobset)
        assert spec["nodeSelector"] == {"cloud.google.com/gke-nodepool": "cpu-np"}
        assert "hostNetwork" not in spec and "tolerations" not in spec
        assert "metadata" not in job(jobset)["template"]  # no exclusive placement on the shared CPU pool
        assert container(jobset)["resources"] == {"requests": {"cpu": "1", "memory": "4Gi"},
                                                  "limits": {"memory": "4Gi"}}
        assert (job(jobset)["replicas"], job(jobset)["template"]["spec"]["parallelism"]) == (1, 4)
        assert [p["containerPort"] for p in container(jobset)["ports"]] == [1234]

    def test_jax_runs_on_the_cpu_platform_and_knows_its_cluster(self):
        jobset = render({"jax": {"processes": 4, "slices": 2, "cpu": 2, "memory": "8Gi"}})
        assert container(jobset)["resources"]["requests"] == {"cpu": "2", "memory": "8Gi"}
        envs = [container_env(p, p.containers[0]) for p in pods(jobset)]
        assert [e["JAX_PLATFORMS"] for e in envs] == ["cpu"] * 4
        assert [(e["JOB_INDEX"], e["JOB_COMPLETION_INDEX"]) for e in envs] == [
            ("0", "0"), ("0", "1"), ("1", "0"), ("1", "1")]
        assert {e["JAX_COORDINATOR_ADDRESS"] for e in envs} == {"train-workers-0-0.train:1234"}
        assert {e["JAX_NUM_PROCESSES"] for e in envs} == {"4"}
        assert not [n for n in envs[0] if n.startswith("MEGASCALE_")]

    def test_layout(self):
        st = parsed(workloads=[{"name": "train", "runtime": "jax", "image": IMAGE, "command": "x",
                                "jax": {"processes": 6, "slices": 3}}])
        layout = jax_layout(st.workloads[0], Placement.of(st, st.workloads[0]))
        assert (layout.platform, layout.jobs, layout.processes_per_job, layout.processes) == ("cpu", 3, 2, 6)
        assert coordinator_address(st.workloads[0], Placement.of(st, st.workloads[0])) == \
            "train-workers-0-0.train:1234"


class TestContainer:
    def test_command_is_the_users_text_under_the_wrapper_with_the_process_id_setup(self):
        argv = container(render({"jax": {"processes": 2}, "command": "python3 -m train\n--steps 3"}))["command"]
        assert argv[:2] == ["bash", "-c"] and argv[3:] == ["pathways-gke", "python3 -m train\n--steps 3"]
        assert "JAX_PROCESS_ID = JOB_INDEX * PROCESSES_IN_JOB + JOB_COMPLETION_INDEX" in argv[2]

    def test_a_list_command_is_joined_with_shell_quoting(self):
        argv = container(render({"jax": {"processes": 2}, "command": ["python3", "train.py", "--name", "a b"]}))[
            "command"]
        assert argv[-1] == "python3 train.py --name 'a b'"

    def test_env_and_secret_env_come_after_ours_sorted(self):
        jobset = render({"jax": {"processes": 1}, "env": {"Z": "1", "A": "2"}, "secretEnv": {"TOKEN": "hf"}},
                        secrets={"hf": "s3cr3t-value"})
        env = container(jobset)["env"]
        assert [e["name"] for e in env[-3:]] == ["A", "Z", "TOKEN"]
        assert env[-1] == {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "train-env", "key": "TOKEN"}}}
        assert "s3cr3t" not in json.dumps(jobset)  # only a reference to the Secret

    def test_every_variable_we_set_is_declared_managed(self):
        for platform, jobset in (("tpu", render({"tpuPool": "main"}, [V5P_2x2x2_X2])),
                                 ("cpu", render({"jax": {"processes": 2}}))):
            assert set(env_names(jobset)) <= set(jax_managed_env(platform))

    def test_env_values_only_reference_variables_defined_before_them(self):
        jobset = render({"tpuPool": "main"}, [V5P_2x2x2_X2])
        pod = next(pods(jobset))
        env = container_env(pod, pod.containers[0])
        assert "$(" not in "".join(env.values())
        assert container_argv(pod.containers[0], env) == container(jobset)["command"]

    def test_pod_options(self):
        jobset = render({"jax": {"processes": 2}, "priorityClass": "high", "serviceAccount": "trainer",
                         "terminationGracePeriodSeconds": 120, "privileged": True})
        spec = pod_spec(jobset)
        assert (spec["priorityClassName"], spec["serviceAccountName"], spec["terminationGracePeriodSeconds"]) == (
            "high", "trainer", 120)
        assert container(jobset)["securityContext"] == {"privileged": True}
        assert "securityContext" not in container(render({"jax": {"processes": 2}}))

    def test_the_same_config_renders_byte_identical_objects(self):
        a = render({"tpuPool": "main", "env": {"B": "1", "A": "2"}}, [V5P_2x2x2_X2], kueue={"enabled": True})
        b = render({"tpuPool": "main", "env": {"A": "2", "B": "1"}}, [V5P_2x2x2_X2], kueue={"enabled": True})
        assert json.dumps(a) == json.dumps(b)

    def test_refuses_what_it_cannot_render(self):
        st = parsed(secrets={"hf": "x"}, workloads=[
            {"name": "train", "runtime": "jax", "image": IMAGE, "command": "x", "jax": {"processes": 1},
             "secretEnv": {"T": "hf"}}])
        with pytest.raises(ValueError, match="Secret"):
            build_jax_jobset(st.workloads[0], Placement.of(st, st.workloads[0]))
        pw = parsed(tpuPools=[V5P_2x2x2_X2], workloads=[
            {"name": "p", "runtime": "pathways", "tpuPool": "main", "image": IMAGE, "command": "x",
             "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}}])
        with pytest.raises(ValueError, match="not 'jax'"):
            build_jax_jobset(pw.workloads[0], Placement.of(pw, pw.workloads[0]))


# --- every JobSet we can render validates against both JobSet CRDs -------------------------------------

def _catalog_cases():
    for gen in GENERATIONS.values():
        for machine in gen.machine_types:
            for topology in machine.topologies:
                shape = resolve(gen.name, topology, machine.name)
                for slices in ((1, 2, 4) if shape.multi_host else (1,)):
                    yield shape, slices


@pytest.mark.slow
def test_every_tpu_shape_and_slice_count_renders_a_valid_jobset():
    workload = parsed(tpuPools=[V5P_2x2x2_X2], workloads=[
        {"name": "train", "runtime": "jax", "tpuPool": "main", "image": IMAGE, "command": "python3 t.py",
         "maxRestarts": 2, "env": {"A": "1"}}]).workloads[0]
    count = 0
    for shape, slices in _catalog_cases():
        target = Placement(namespace="ml", cpu_pool="cpu-np", tpu_group="main", tpu_type=shape.generation,
                           tpu_topology=shape.topology, tpu_machine_type=shape.machine_type, slices=slices,
                           capacity="spot", queue_name="pathways-queue",
                           placement_policy="pw-main-wp" if shape.needs_workload_policy else None)
        jobset = build_jax_jobset(workload, target)
        assert jobset_schema_errors(jobset) == {"v0.8.2": [], "v0.12.0": []}, (shape, slices)
        assert job(jobset)["replicas"] * job(jobset)["template"]["spec"]["parallelism"] == \
            slices * shape.vms_per_slice
        count += 1
    assert count > 400  # the whole catalog, not a sample


@pytest.mark.slow
@pytest.mark.parametrize("processes, slices", [(1, None), (2, None), (4, 2), (8, 4), (64, None), (4096, 16)])
def test_cpu_jobsets_validate(processes, slices):
    jax_settings = {"processes": processes, **({"slices": slices} if slices else {})}
    jobset = render({"jax": jax_settings, "secretEnv": {"T": "hf"}}, secrets={"hf": "x"}, kueue={"enabled": True},
                    namespace="ml")
    assert jobset_schema_errors(jobset) == {"v0.8.2": [], "v0.12.0": []}
    assert jobset["metadata"]["namespace"] == "ml"
