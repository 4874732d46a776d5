"""The validated stack: the root model whose fields are the sections, as the program and the builders read it.

`StackConfig` is the one source of the stack's shape: `config/stack.py` reads its keys from it, and
`python -m pathways_gke.argsgen` generates `PathwaysClusterArgs` (args_types.py) from its fields (the arg names
are the stack keys in snake_case, the descriptions the docstrings under the fields).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Mapping, Optional

from pydantic import ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_snake

from ..errors import ConfigError, Problem
from .access import BucketConfig
from .addons import JobSetConfig, KueueConfig, LwsConfig
from .base import Model
from .cluster import ClusterConfig, CpuPoolConfig
from .observability import ObservabilityConfig
from .tpu import TpuPoolConfig
from .types import Namespace
from .workloads import WorkloadConfig


@dataclass(frozen=True)
class SecretValues:
    """Marks the field that keeps only the NAMES of a name -> secret value mapping (`secrets`).

    A secret value never enters validation (it would end up in error messages and the model): the readers
    hand the model the names, and the program hands the values to the component. The generated arg takes the
    values, each a `pulumi.Input` (argsgen reads this mark)."""


SECRET_VALUES = SecretValues()

_CrossSectionCheck = Callable[["StackConfig"], list[Problem]]
_cross_section_checks: list[_CrossSectionCheck] = []


def run_across_sections(check: _CrossSectionCheck) -> _CrossSectionCheck:
    """Hand the root model the check it runs as its validator (config/checks.py, `cross_section_problems`).

    The checks read a StackConfig, and so does the model they build on (config/placement.py `Placement.of`), so
    this module cannot import them (tests/test_layers.py refuses the cycle): config/checks.py hands its entry
    point over when it is imported. Importing any module of the package `pathways_gke.config` runs its `__init__`
    first, which imports config/stack.py and so config/checks.py: a StackConfig is never validated without
    them (and the validator refuses to run if it were)."""
    if check not in _cross_section_checks:
        _cross_section_checks.append(check)
    return check


class StackConfig(Model):
    """The stack config: every section, checked against each other.

    Built by `config.stack.parse_stack` (the one reader), which validates each section on its own first and
    each list item on its own, so that one bad section or entry never hides another's problems (pydantic
    reports every failed field, but a model exists only when all of them parsed, and it cannot say which
    entries of a list did; the pools that parsed beside a failed entry are still checked, on a draft). The
    project id, the namespace and the secrets' shape are checked there too, with the stack file's wording, and
    the model gets "" / "default" / no names for a bad one, so the cross-section checks still run on what
    parsed: that is why `project` is a plain string here.

    The checks across sections (config/checks.py) run as this model's validator, and report every problem
    at once: the validator raises the project's `ConfigError`. That is a `ValueError`, so pydantic wraps it
    in a `ValidationError` (a `value_error` at the root whose context holds the ConfigError itself; an
    exception that is not a ValueError or AssertionError would pass through unchanged):
    `base.problems_from` hands its problems on unchanged, so validating this model directly reports exactly
    what `parse_stack` reports, path, message, value and order alike.
    """

    model_config = ConfigDict(str_strip_whitespace=False)  # the readers hand over checked values, kept exactly

    project: str = Field(alias="gcp:project")
    """GCP project id (the stack file's gcp:project)."""
    cluster: ClusterConfig
    """The GKE cluster."""
    cpu_pool: CpuPoolConfig = Field(default_factory=CpuPoolConfig)
    """The CPU pool for the Pathways head and controllers."""
    tpu_pools: tuple[TpuPoolConfig, ...] = ()
    """TPU pool groups, one node pool per slice."""
    jobset: JobSetConfig = Field(default_factory=JobSetConfig)
    """The JobSet controller."""
    kueue: KueueConfig = Field(default_factory=KueueConfig)
    """Kueue admission."""
    workloads: tuple[WorkloadConfig, ...] = ()
    """Workloads run on the cluster."""
    buckets: tuple[BucketConfig, ...] = ()
    """Buckets the stack creates, or that live in another project."""
    observability: ObservabilityConfig = Field(default_factory=ObservabilityConfig)
    """Metrics, Console links and alerts."""
    lws: LwsConfig = Field(default_factory=LwsConfig)
    """The LeaderWorkerSet controller (serving and service workloads)."""
    namespace: Namespace = "default"
    """Kubernetes namespace of the workloads. Default: "default"."""
    secret_names: Annotated[tuple[str, ...], SECRET_VALUES] = Field(default=(), alias="secrets")
    """Secret values by name (referenced by workloads' secretEnv); the names must be known, values may be secrets."""

    @field_validator("secret_names", mode="before")
    @classmethod
    def _names_only(cls, value: Any) -> Any:
        """`secrets` as the stack holds it (name -> secret value): only its names are kept, sorted."""
        return tuple(sorted(str(name) for name in value)) if isinstance(value, Mapping) else value

    @model_validator(mode="after")
    def _sections_agree(self) -> StackConfig:
        if not _cross_section_checks:
            raise RuntimeError("the cross-section checks are not loaded (import pathways_gke.config)")
        problems = [problem for check in _cross_section_checks for problem in check(self)]
        if problems:
            raise ConfigError(problems)
        return self

    @property
    def needs_lws(self) -> bool:
        """The LeaderWorkerSet controller is installed only for workloads that run on one."""
        return any(w.on_lws for w in self.workloads)

    def pool(self, name: str) -> Optional[TpuPoolConfig]:
        return next((p for p in self.tpu_pools if p.name == name), None)


STACK_KEYS: dict[str, str] = {to_snake(f.alias.rpartition(":")[2]): f.alias
                              for f in StackConfig.model_fields.values() if f.alias}
"""PathwaysClusterArgs' arg name -> the stack-config key it is (`project` -> `gcp:project`, `cpu_pool` ->
`cpuPool`, `secrets` -> `secrets`): the args are the stack's keys in snake_case."""


@dataclass(frozen=True)
class ClusterFacts:
    """What a PathwaysCluster's child components read about their cluster, and nothing else (as pulumi-eks's
    child components take a small `cluster` object, not the whole config). Each child takes these facts plus
    its own section; `of(stack)` is the one place they are read off a validated stack."""

    name: str
    """GKE cluster name (cluster.name)."""
    location: str
    """Region or zone of the cluster (cluster.location)."""
    region: str
    """Region of the cluster's location."""
    project: str
    """GCP project id (gcp:project)."""
    project_number: Optional[str]
    """GCP project number (cluster.projectNumber), if given."""
    namespace: str
    """Kubernetes namespace of the workloads."""
    cpu_pool: str
    """GKE node-pool name of the CPU (head) pool."""
    created: bool
    """Whether the stack creates the cluster (cluster.create); false: adopted."""
    protect: bool
    """cluster.protect: whether the infrastructure is protected unless a component option says so."""
    labels: Mapping[str, Any] = field(default_factory=dict)
    """GCE labels of the cluster's resources (cluster.labels; values may be deferred stand-ins)."""
    additional_networks: tuple[tuple[str, str], ...] = ()
    """(network, subnetwork) of each cluster.additionalNetworks entry: every TPU pool gets a NIC in each."""

    @classmethod
    def of(cls, stack: StackConfig) -> ClusterFacts:
        c = stack.cluster
        return cls(name=c.name, location=c.location, region=c.region, project=stack.project,
                   project_number=c.project_number, namespace=stack.namespace, cpu_pool=stack.cpu_pool.name,
                   created=c.create, protect=c.protect, labels=dict(c.labels),
                   additional_networks=tuple((n.network_path(), n.subnetwork_path(c.region))
                                             for n in c.additional_networks))
