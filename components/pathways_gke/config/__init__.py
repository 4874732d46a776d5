"""Stack config: pydantic models for every section and the loader that checks them together.

The names below load on first use (PEP 562), so a module that needs one piece of the package (`stack_file`, to
read a stack file as the Pulumi CLI does; `diff` of two plan.json files) does not build every model first."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

_HOMES = {
    "JobSetConfig": "addons", "KueueConfig": "addons", "ClusterConfig": "cluster", "CpuPoolConfig": "cluster",
    "StackConfig": "stack", "from_pulumi_config": "stack", "load_stack_file": "stack", "parse_stack": "stack",
    "read_stack_file": "stack", "Reservation": "tpu", "TpuPoolConfig": "tpu", "JaxSettings": "workloads",
    "PathwaysSettings": "workloads", "WorkloadConfig": "workloads",
}

if TYPE_CHECKING:
    from .addons import JobSetConfig, KueueConfig
    from .cluster import ClusterConfig, CpuPoolConfig
    from .stack import StackConfig, from_pulumi_config, load_stack_file, parse_stack, read_stack_file
    from .tpu import Reservation, TpuPoolConfig
    from .workloads import JaxSettings, PathwaysSettings, WorkloadConfig


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "ClusterConfig", "CpuPoolConfig", "JaxSettings", "JobSetConfig", "KueueConfig", "PathwaysSettings",
    "Reservation", "StackConfig", "TpuPoolConfig", "WorkloadConfig", "from_pulumi_config", "load_stack_file",
    "parse_stack", "read_stack_file",
]
