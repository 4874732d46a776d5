"""Stack config: pydantic models for every section and the loader that checks them together."""

from .addons import JobSetConfig, KueueConfig
from .cluster import ClusterConfig, CpuPoolConfig
from .stack import StackConfig, from_pulumi_config, load_stack_file, parse_stack, read_stack_file
from .tpu import Reservation, TpuPoolConfig
from .workloads import JaxSettings, PathwaysSettings, WorkloadConfig

__all__ = [
    "ClusterConfig", "CpuPoolConfig", "JaxSettings", "JobSetConfig", "KueueConfig", "PathwaysSettings",
    "Reservation", "StackConfig", "TpuPoolConfig", "WorkloadConfig", "from_pulumi_config", "load_stack_file",
    "parse_stack", "read_stack_file",
]
