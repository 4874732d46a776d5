"""JaxWorkload component inputs <-> validated config. Pure: no Pulumi import.

The component takes plain, cross-language inputs (nested dicts with snake_case keys, as Pulumi's
component provider delivers them; integers may arrive as floats). They are validated through the same
pydantic models and checks as a stack file, and errors name the input path (`workload.jax.processes`).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from pydantic import ValidationError

from ..capacity import CAPACITIES
from ..catalog import CatalogError, resolve
from ..config.base import problems_from
from ..config.checks import jax_problems
from ..config.stack import StackConfig
from ..config.workloads import JaxWorkloadConfig, cluster_wired_problems, without_cluster_wired
from ..errors import ConfigError, Problem, allowed
from ..config.target import WorkloadTarget, target_for


def _int(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def validate_jax_inputs(workload: Mapping[str, Any], target: Mapping[str, Any],
                        secret_names: tuple[str, ...] = ()) -> tuple[JaxWorkloadConfig, WorkloadTarget]:
    """Validate component inputs; raise ConfigError naming every bad input path."""
    problems: list[Problem] = []
    config: Optional[JaxWorkloadConfig] = None
    try:
        config = JaxWorkloadConfig.model_validate({**workload, "runtime": "jax"})
    except ValidationError as error:
        problems.extend(problems_from(error, JaxWorkloadConfig, ["workload"]))

    shape = None
    slices = int(_int(target.get("slices") or 0))
    capacity = target.get("capacity") or "on-demand"
    if capacity not in CAPACITIES:
        problems.append(Problem("target.capacity", f"is not a capacity mode; {allowed(CAPACITIES)}", capacity))
    if target.get("tpu_type"):
        try:
            shape = resolve(target["tpu_type"], target.get("topology") or "", target.get("machine_type"))
        except CatalogError as error:
            field = {"type": "tpu_type", "machineType": "machine_type"}.get(error.field, error.field)
            problems.append(Problem(f"target.{field}", str(error), error.value))
        if slices < 1:
            problems.append(Problem("target.slices", "must be at least 1 for a TPU target", target.get("slices")))
        if not target.get("tpu_group"):
            problems.append(Problem("target.tpu_group", "is required for a TPU target (the node label "
                                    "pathways-gke/tpu-group of its node pools)"))
    for key in ("namespace", "cpu_pool"):
        if not target.get(key):
            problems.append(Problem(f"target.{key}", "is required"))
    if config is not None:
        problems.extend(cluster_wired_problems(config, "workload"))
        if shape is not None and config.tpu_pool is None:
            config = config.model_copy(update={"tpu_pool": target.get("tpu_group")})
        if shape is None and config.tpu_pool is not None:
            problems.append(Problem("workload.tpu_pool", "names a TPU pool group but the target has no tpu_type "
                                    "and topology", config.tpu_pool))
        if shape is not None or config.tpu_pool is None:
            problems.extend(jax_problems(config, "workload", target.get("tpu_group"), shape, slices))
        if config.command is None:
            problems.append(Problem("workload.command", "is required (the program every process runs)"))
        if config.image is None:
            problems.append(Problem("workload.image", "is required (the container image, pinned to a tag)"))
        for env_name, key in config.secret_env.items():
            if key not in secret_names:
                problems.append(Problem(f"workload.secret_env.{env_name}", "names no key of the secrets input; "
                                        + (allowed(secret_names) if secret_names else "no secrets were given"), key))
    if problems:
        raise ConfigError(problems)
    assert config is not None
    return config, WorkloadTarget(
        namespace=target["namespace"],
        cpu_pool=target["cpu_pool"],
        tpu_group=target.get("tpu_group") if shape is not None else None,
        shape=shape,
        slices=slices if shape is not None else 0,
        capacity=capacity,
        reservation=target.get("reservation"),
        placement_policy=target.get("placement_policy"),
        queue_name=target.get("queue_name"),
    )


def target_inputs(target: WorkloadTarget) -> dict[str, Any]:
    """A WorkloadTarget as component inputs (plain values only)."""
    out: dict[str, Any] = {"namespace": target.namespace, "cpu_pool": target.cpu_pool, "capacity": target.capacity}
    if target.shape is not None:
        out.update({"tpu_group": target.tpu_group, "tpu_type": target.shape.generation,
                    "topology": target.shape.topology, "machine_type": target.shape.machine_type,
                    "slices": target.slices})
    for key in ("reservation", "placement_policy", "queue_name"):
        if getattr(target, key):
            out[key] = getattr(target, key)
    return out


def jax_inputs_from_stack(stack: StackConfig, workload: JaxWorkloadConfig) -> dict[str, Any]:
    """Plain `workload` and `target` inputs for a stack's jax workload (secrets are added by the caller)."""
    plain = workload.model_dump(exclude_unset=True, exclude_none=True, include=without_cluster_wired(workload),
                                exclude={"runtime"})
    if workload.command_text is not None:
        plain["command"] = workload.command_text  # one bash text (a list command is shell-joined)
    return {"workload": plain, "target": target_inputs(target_for(stack, workload))}
