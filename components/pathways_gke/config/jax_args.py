"""JaxWorkload component inputs <-> validated config. Pure: no Pulumi import.

The component takes plain, cross-language inputs (nested dicts with snake_case keys, as Pulumi's
component provider delivers them; integers may arrive as floats): `workload`, the placement args every workload
component takes (config/placement.py) and `secrets`. They are validated through the same pydantic models and
checks as a stack file, and errors name the input path (`workload.jax.processes`, `tpu_topology`).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from pydantic import ValidationError

from ..errors import ConfigError, Problem
from .base import problems_from
from .checks import jax_problems
from .model import StackConfig
from .placement import Placement, placement_problems, plain, secret_values_from_args
from .workloads import JaxWorkloadConfig, cluster_wired_problems, without_cluster_wired

OWN_ARGS = ("workload", "secrets")
"""JaxWorkload's args besides the placement."""


def validate_jax_args(args: Mapping[str, Any]) -> tuple[JaxWorkloadConfig, Placement]:
    """Validate component args; raise ConfigError naming every bad input path."""
    problems: list[Problem] = []
    config: Optional[JaxWorkloadConfig] = None
    workload = args.get("workload")
    if not isinstance(workload, Mapping):
        problems.append(Problem("workload", "is required: a mapping like one pathways-gke:workloads entry with "
                                "runtime jax"))
    else:
        try:
            config = JaxWorkloadConfig.model_validate({**plain(workload), "runtime": "jax"})
        except ValidationError as error:
            problems.extend(problems_from(error, JaxWorkloadConfig, ["workload"]))
    placement, placement_errors = placement_problems(args, OWN_ARGS, tpu_required=False)
    problems.extend(placement_errors)
    if placement is not None and placement.shape is not None and placement.tpu_group is None \
            and not placement.fallback:
        problems.append(Problem("tpu_group", "is required with tpu_type for a JaxWorkload (the node label "
                                "pathways-gke/tpu-group of its node pools)"))
    if config is not None:
        problems.extend(cluster_wired_problems(config, "workload"))
        if placement is not None and placement.shape is not None and not config.pool_groups:
            update = ({"tpu_pools": list(placement.fallback_groups or [])} if placement.fallback else
                      {"tpu_pool": placement.tpu_group})
            config = config.model_copy(update=update)
        if placement is not None and placement.shape is None and config.tpu_pool is not None:
            problems.append(Problem("workload.tpu_pool", "names a TPU pool group but the placement has no tpu_type",
                                    config.tpu_pool))
        if placement is not None and (placement.shape is not None or config.tpu_pool is None):
            problems.extend(jax_problems(config, "workload", placement))
        if config.command is None:
            problems.append(Problem("workload.command", "is required (the program every process runs)"))
        if config.image is None:
            problems.append(Problem("workload.image", "is required (the container image, pinned to a tag)"))
        secret_values_from_args(config, args, problems)
    if problems:
        raise ConfigError(problems)
    assert config is not None and placement is not None
    return config, placement


def jax_inputs_from_stack(stack: StackConfig, workload: JaxWorkloadConfig) -> dict[str, Any]:
    """Plain `workload` and placement args for a stack's jax workload (secrets are added by the caller)."""
    plain_workload = workload.model_dump(exclude_unset=True, exclude_none=True,
                                         include=without_cluster_wired(workload), exclude={"runtime"})
    return {"workload": plain_workload, **Placement.of(stack, workload).args()}
