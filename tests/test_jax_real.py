"""THE PROOF: the JobSet we render for a CPU jax workload really runs multi-controller JAX.

For each pod of the rendered JobSet we derive exactly what Kubernetes would run (tests/support/pods.py:
the labels/annotations the JobSet and Job controllers stamp, fieldRefs resolved from them, `$(VAR)`
expansion in env values and in the command), with the coordinator's cluster DNS name replaced by
127.0.0.1 and the coordinator port by a free local port. Then we start one local process per pod with
that environment and that command (the SIGTERM wrapper included) running tests/programs/allreduce.py,
which calls `jax.distributed.initialize` from the environment and reduces across processes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pathways_gke.render.jax_jobset import build_jax_jobset, coordinator_host
from pathways_gke.config.placement import Placement
from tests.support.pods import Pod, container_argv, container_env, pods
from tests.support.stacks import parsed

PROGRAM = Path(__file__).parent / "programs" / "allreduce.py"
TIMEOUT = 60  # seconds for a whole group of processes (a run takes ~3 s on 2 cores)
# Only what any container has; nothing from this machine's JAX/Kubernetes environment leaks in.
BASE_ENV_KEYS = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")

needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                               reason="jax is not installed (pip install 'jax[cpu]'; .ci/run installs it)")
pytestmark = [pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")]


def cpu_stack(processes: int, slices: int | None, command: str, **extra):
    jax_settings = {"processes": processes, **({"slices": slices} if slices else {})}
    return parsed(workloads=[{"name": "jaxcpu", "runtime": "jax", "image": "python:3.11-slim",
                              "command": command, "jax": jax_settings, **extra}])


def rendered(processes: int, slices: int | None, command: str, **extra) -> dict:
    config = cpu_stack(processes, slices, command, **extra)
    workload = config.workloads[0]
    return build_jax_jobset(workload, Placement.of(config, workload), secret_name="jaxcpu-env")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def local_pods(jobset: dict) -> list[Pod]:
    """The pods, with the coordinator's cluster DNS name pointing at this machine."""
    name = jobset["metadata"]["name"]
    return list(pods(jobset, host_aliases={coordinator_host(name): "127.0.0.1"}))


def pod_process(pod: Pod, port: int, secrets: dict | None = None) -> tuple[dict[str, str], list[str]]:
    [container] = pod.containers
    env = container_env(pod, {**container, "env": [
        # the rendered coordinator port is a cluster port; here all processes share one host
        {"name": e["name"], "value": str(port)} if e["name"] == "JAX_COORDINATOR_PORT" else e
        for e in container["env"]]}, secrets)
    base = {k: os.environ[k] for k in BASE_ENV_KEYS if k in os.environ}
    return {**base, **env}, container_argv(container, env)


def run_group(commands: list[tuple[dict[str, str], list[str]]]) -> list[tuple[int, str]]:
    """Start every process at once; collect (exit code, output); kill the group on timeout or failure."""
    procs, outputs = [], []
    try:
        for env, argv in commands:
            out = tempfile.TemporaryFile(mode="w+")
            outputs.append(out)
            procs.append(subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT,
                                          start_new_session=True, cwd=tempfile.gettempdir()))
        deadline = time.monotonic() + TIMEOUT
        for proc in procs:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        pass
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    results = []
    for proc, out in zip(procs, outputs):
        out.seek(0)
        results.append((proc.returncode, out.read()))
        out.close()
    return results


def result_line(output: str) -> dict:
    lines = [line for line in output.splitlines() if line.startswith("RESULT ")]
    assert len(lines) == 1, f"no RESULT line in the process output:\n{output[-3000:]}"
    return json.loads(lines[0][len("RESULT "):])


@needs_jax
@pytest.mark.parametrize("processes, slices", [(2, None), (4, None), (4, 2)],
                         ids=["2-processes", "4-processes", "4-processes-as-2-jobs"])
@pytest.mark.slow
def test_every_pod_joins_one_jax_cluster_and_reduces_across_processes(processes, slices):
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(PROGRAM))}"
    jobset = rendered(processes, slices, command)
    pod_list = local_pods(jobset)
    assert len(pod_list) == processes
    port = free_port()
    commands = [pod_process(pod, port) for pod in pod_list]
    # the command each pod runs is the rendered wrapper around the user's text, unchanged by expansion
    assert all(argv == jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
               ["containers"][0]["command"] for _, argv in commands)

    results = run_group(commands)

    per_job = processes // (slices or 1)
    for pod, (code, output) in zip(pod_list, results):
        assert code == 0, f"pod {pod.hostname} exited {code}:\n{output[-3000:]}"
        result = result_line(output)
        expected_id = pod.job_index * per_job + pod.completion_index
        assert result["process_index"] == expected_id, pod.hostname
        assert result["process_count"] == processes
        assert result["backend"] == "cpu"  # JAX_PLATFORMS=cpu from the JobSet
        assert result["coordinator"] == f"127.0.0.1:{port}"
        assert result["gathered"] == list(range(processes))
        assert result["sum"] == processes * (processes + 1) // 2
        assert "workload command exited with code 0" in output  # ran under the wrapper


def test_process_ids_are_unique_and_dense_from_the_downward_api_alone():
    # No JAX needed to see the arithmetic, but it runs the real wrapper setup in bash.
    jobset = rendered(6, 3, 'echo "ID $JAX_PROCESS_ID OF $JAX_NUM_PROCESSES AT $JAX_COORDINATOR_ADDRESS"')
    pod_list = local_pods(jobset)
    results = run_group([pod_process(pod, 4321) for pod in pod_list])
    ids = []
    for (code, output) in results:
        assert code == 0, output
        [line] = [line for line in output.splitlines() if line.startswith("ID ")]
        ids.append(line)
    assert ids == [f"ID {i} OF 6 AT 127.0.0.1:4321" for i in range(6)]


def test_secret_env_reaches_the_process_from_the_kubernetes_secret():
    config = parsed(secrets={"hf": "<secret>"}, workloads=[
        {"name": "jaxcpu", "runtime": "jax", "image": "python:3.11-slim",
         "command": 'echo "token=$HF_TOKEN mode=$MODE"', "jax": {"processes": 1},
         "env": {"MODE": "eval"}, "secretEnv": {"HF_TOKEN": "hf"}}])
    workload = config.workloads[0]
    jobset = build_jax_jobset(workload, Placement.of(config, workload), secret_name="jaxcpu-env")
    [pod] = local_pods(jobset)
    [(code, output)] = run_group([pod_process(pod, 1234, secrets={"jaxcpu-env": {"HF_TOKEN": "s3cr3t"}})])
    assert code == 0 and "token=s3cr3t mode=eval" in output


def test_sigterm_to_a_rendered_pod_reaches_the_jax_program():
    # The kubelet stops a pod by sending SIGTERM to the container's first process: the wrapper.
    # the handler writes with os.write: a print() in a handler raises "reentrant call" when the signal lands while
    # the main thread is still inside print()'s flush of the line the test just read
    program = ("import os, signal, sys, time\n"
               "signal.signal(signal.SIGTERM, lambda *_: (os.write(1, b'program: got SIGTERM\\n'), sys.exit(0)))\n"
               "print('program: running', flush=True)\n"
               "time.sleep(60)\n")
    command = f"cd /\n{shlex.quote(sys.executable)} -c {shlex.quote(program)}\necho after"
    jobset = rendered(1, None, command)
    [pod] = local_pods(jobset)
    env, argv = pod_process(pod, free_port())
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + TIMEOUT
        seen = ""
        while "program: running" not in seen and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen += line
        assert "program: running" in seen, seen
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert "program: got SIGTERM" in out
    assert "after" not in out
    assert proc.returncode == 143
