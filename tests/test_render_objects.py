"""The one dispatch from a workload model to its objects (render/objects.py): for every workload of every shipped
stack it picks the builder the workload's runtime and mode call for, names the Secret as the components do, and
lists every pod the workload runs."""

from __future__ import annotations

import pytest

from pathways_gke.config.placement import Placement
from pathways_gke.config.workloads import JaxWorkloadConfig
from pathways_gke.naming import PATHWAYS_HEAD_JOB, PATHWAYS_WORKER_JOB, workload_secret_name
from pathways_gke.render.jax_jobset import build_jax_jobset
from pathways_gke.render.objects import WorkloadObjects, objects_for, secret_name_for
from pathways_gke.render.pathways_jobset import build_pathways_jobset
from pathways_gke.render.serving_lws import serving_objects

from .support.stacks import parsed

SHIPPED = ("dev", "prod", "jax", "serve", "jetstream")
CASES = [(stack, w.name) for stack in SHIPPED for w in parsed(stack).workloads]


def test_every_runtime_and_mode_is_among_the_cases():
    modes = {(type(w).__name__, getattr(w, "mode", None)) for s in SHIPPED for w in parsed(s).workloads}
    assert {("JaxWorkloadConfig", None), ("PathwaysWorkloadConfig", "default"), ("PathwaysWorkloadConfig", "serving"),
            ("PathwaysWorkloadConfig", "service")} <= modes, modes


@pytest.mark.parametrize("stack_name,workload_name", CASES)
def test_the_dispatch_renders_what_the_runtimes_builder_renders(stack_name, workload_name):
    stack = parsed(stack_name)
    workload = next(w for w in stack.workloads if w.name == workload_name)
    target = Placement.of(stack, workload)
    secret = workload_secret_name(workload.name) if workload.secret_env else None
    made = objects_for(workload, target)
    assert made.secret_name == secret_name_for(workload) == secret
    if isinstance(workload, JaxWorkloadConfig):
        assert made == WorkloadObjects(build_jax_jobset(workload, target, secret_name=secret), secret_name=secret)
        assert made.kind == "JobSet" and made.primary["metadata"]["labels"]["pathways-gke/runtime"] == "jax"
    elif not workload.on_lws:
        assert made == WorkloadObjects(build_pathways_jobset(workload, target, secret_name=secret), secret_name=secret)
        assert made.kind == "JobSet"
        assert [role for role, _ in made.pod_templates()] == [PATHWAYS_HEAD_JOB, PATHWAYS_WORKER_JOB]
    else:
        lws = serving_objects(workload, target, secret_name=secret)
        assert (made.primary, made.service, made.clients) == (lws.lws, lws.service, lws.clients)
        assert made.kind == "LeaderWorkerSet"
        roles = [role for role, _ in made.pod_templates()]
        assert roles == ["leader", "worker", *(f"proxy-{c}" for c in sorted(lws.clients))]
        assert (made.service is None) == (workload.mode == "service")
    assert made.primary["metadata"]["name"] == workload.name
    assert made.primary["metadata"]["namespace"] == target.namespace
    for _role, template in made.pod_templates():
        assert template["spec"]["containers"], _role


def test_the_dispatch_refuses_what_is_not_a_workload_model():
    stack = parsed("dev")
    with pytest.raises(TypeError, match="not a workload model: TpuPoolConfig"):
        objects_for(stack.tpu_pools[0], Placement.of(stack, stack.workloads[0]))  # type: ignore[arg-type]
