"""The whole stack config: every section parsed, then checked against each other.

Each section is validated on its own so that one bad section does not hide the
problems of another; cross-section checks run on whatever parsed. All problems are
raised together as one ConfigError, before the program registers anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional

import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError

from ..errors import ConfigError, Problem, allowed, did_you_mean
from .access import BucketConfig
from .addons import JobSetConfig, KueueConfig, LwsConfig
from .base import problems_from
from .cluster import ClusterConfig, CpuPoolConfig
from .observability import ObservabilityConfig
from .tpu import TpuPoolConfig
from .workloads import WorkloadConfig

PROJECT = "pathways-gke"
DNS_1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
GCP_PROJECT = re.compile(r"^[a-z][-a-z0-9]{4,28}[a-z0-9]$")


@dataclass(frozen=True)
class StackConfig:
    project: str
    cluster: ClusterConfig
    cpu_pool: CpuPoolConfig
    tpu_pools: tuple[TpuPoolConfig, ...]
    jobset: JobSetConfig
    kueue: KueueConfig
    workloads: tuple[WorkloadConfig, ...]
    namespace: str = "default"
    secret_names: tuple[str, ...] = field(default_factory=tuple)
    buckets: tuple[BucketConfig, ...] = field(default_factory=tuple)
    observability: ObservabilityConfig = field(default_factory=ObservabilityConfig)
    lws: LwsConfig = field(default_factory=LwsConfig)

    @property
    def needs_lws(self) -> bool:
        """The LeaderWorkerSet controller is installed only for workloads that run on one."""
        return any(w.on_lws for w in self.workloads)

    def pool(self, name: str) -> Optional[TpuPoolConfig]:
        return next((p for p in self.tpu_pools if p.name == name), None)


# key -> (model or adapter, default when absent; None = required)
_SECTIONS: dict[str, tuple[Any, Any]] = {
    "cluster": (ClusterConfig, None),
    "cpuPool": (CpuPoolConfig, {}),
    "tpuPools": (TypeAdapter(list[TpuPoolConfig]), []),
    "jobset": (JobSetConfig, {}),
    "kueue": (KueueConfig, {}),
    "workloads": (TypeAdapter(list[WorkloadConfig]), []),
    "buckets": (TypeAdapter(list[BucketConfig]), []),
    "observability": (ObservabilityConfig, {}),
    "lws": (LwsConfig, {}),
}
_ROOT_MODELS = {
    "cluster": ClusterConfig, "cpuPool": CpuPoolConfig, "tpuPools": TpuPoolConfig,
    "jobset": JobSetConfig, "kueue": KueueConfig, "workloads": WorkloadConfig, "buckets": BucketConfig,
    "observability": ObservabilityConfig, "lws": LwsConfig,
}
_PLAIN_KEYS = ("namespace", "secrets")
KNOWN_KEYS = tuple(_SECTIONS) + _PLAIN_KEYS


def parse_stack(values: Mapping[str, Any]) -> StackConfig:
    """Validate a flat config mapping (`gcp:project`, `pathways-gke:cluster`, ...) into a StackConfig.

    Keys may be given with or without the `pathways-gke:` namespace. Raises ConfigError with every problem.
    """
    problems: list[Problem] = []
    ours: dict[str, Any] = {}
    gcp_project: Any = None
    for full_key, value in values.items():
        namespace, _, key = full_key.rpartition(":")
        if namespace in ("", PROJECT):
            if key not in KNOWN_KEYS:
                problems.append(Problem(f"{PROJECT}:{key}", f"unknown config key; {did_you_mean(key, KNOWN_KEYS)}"
                                        f"{allowed(KNOWN_KEYS)}"))
                continue
            ours[key] = value
        elif full_key == "gcp:project":
            gcp_project = value

    if not isinstance(gcp_project, str) or not GCP_PROJECT.match(gcp_project):
        problems.append(Problem("gcp:project", "must be set to a GCP project id (6-30 lower-case letters, "
                                "digits and '-'); Workload Identity and the node service account need it",
                                gcp_project))

    parsed: dict[str, Any] = {}
    partial: dict[str, Any] = {}  # lists where some items failed: what did parse
    for key, (schema, default) in _SECTIONS.items():
        raw = ours.get(key, default)
        if raw is None and default is None:
            problems.append(Problem(key, "is required but missing (e.g. {name: pw-dev, location: us-east5})"))
            continue
        if raw is None:
            raw = default
        if isinstance(schema, TypeAdapter) and isinstance(raw, list):
            # item by item, so one bad entry does not hide the checks of the others
            items, failed = [], False
            for index, item in enumerate(raw):
                try:
                    items.append((index, _ROOT_MODELS[key].model_validate(item, by_alias=True)))
                except ValidationError as exc:
                    failed = True
                    problems.extend(problems_from(exc, _ROOT_MODELS[key], [key, index]))
            if failed:
                partial[key] = items
            else:
                parsed[key] = tuple(model for _, model in items)
            continue
        try:
            if isinstance(schema, TypeAdapter):
                parsed[key] = tuple(schema.validate_python(raw, by_alias=True))
            else:
                parsed[key] = schema.model_validate(raw, by_alias=True)
        except ValidationError as exc:
            problems.extend(problems_from(exc, _ROOT_MODELS[key], [key]))

    namespace = ours.get("namespace", "default")
    if not isinstance(namespace, str) or not DNS_1123_LABEL.match(namespace):
        problems.append(Problem("namespace", "is not a Kubernetes namespace name (lower-case letters, digits "
                                "and '-', at most 63 characters)", namespace))
        namespace = "default"
    secrets = ours.get("secrets", {}) or {}
    if not isinstance(secrets, Mapping):
        problems.append(Problem("secrets", "must be a mapping of secret names to values (set them with "
                                "`pulumi config set --secret --path 'secrets.NAME' VALUE`)", secrets))
        secrets = {}

    from .checks import cross_section_problems  # noqa: PLC0415 (checks imports StackConfig)

    from .checks import tpu_pool_problems  # noqa: PLC0415

    if partial and all(k in parsed for k in ("cluster", "kueue")):
        # some list items failed: still check the pools that parsed (cross-references wait for a clean parse)
        draft = StackConfig(
            project=gcp_project if isinstance(gcp_project, str) else "", cluster=parsed["cluster"],
            cpu_pool=parsed.get("cpuPool") or CpuPoolConfig(), tpu_pools=(), jobset=JobSetConfig(),
            kueue=parsed["kueue"], workloads=(), namespace=namespace,
        )
        pools = partial.get("tpuPools") or list(enumerate(parsed.get("tpuPools", ())))
        for index, pool in pools:
            problems.extend(tpu_pool_problems(draft, pool, f"tpuPools[{index}]"))
    elif all(k in parsed for k in _SECTIONS):
        stack = StackConfig(
            project=gcp_project if isinstance(gcp_project, str) else "",
            cluster=parsed["cluster"], cpu_pool=parsed["cpuPool"], tpu_pools=parsed["tpuPools"],
            jobset=parsed["jobset"], kueue=parsed["kueue"], workloads=parsed["workloads"],
            namespace=namespace, secret_names=tuple(sorted(str(k) for k in secrets)), buckets=parsed["buckets"],
            observability=parsed["observability"], lws=parsed["lws"],
        )
        problems.extend(cross_section_problems(stack))
        if not problems:
            return stack
    raise ConfigError(problems)


def read_stack_file(path: str | Path) -> dict[str, Any]:
    """The `config:` mapping of a Pulumi.<stack>.yaml file (or a bare mapping)."""
    text = Path(path).read_text()
    try:
        data = yaml.load(text, Loader=_StackFileLoader) or {}  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as exc:
        raise ConfigError([Problem(str(path), f"is not valid YAML: {_yaml_problem(exc)}")]) from None
    if not isinstance(data, dict):
        raise ConfigError([Problem(str(path), "must be a mapping with a 'config:' key")])
    config = data.get("config", data)
    if not isinstance(config, dict):
        raise ConfigError([Problem(f"{path}: config", "must be a mapping of keys to values")])
    return config


class _StackFileLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML would keep the last one silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        self.flatten_mapping(node)
        seen: dict[Any, yaml.Mark] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:  # unhashable: SafeLoader reports it below
                continue
            if first is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} is given twice in one mapping, at line {first.line + 1} and line "
                    f"{key_node.start_mark.line + 1}; keep one")
            seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """One line: what the parser found and where (PyYAML's own text spans lines and quotes the source)."""
    def where(text: object, mark: object) -> str:
        text = " ".join(str(text).split())
        return f"{text} at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else text

    problem = getattr(exc, "problem", None)
    if problem is None:
        return where(exc, None)
    found = where(problem, getattr(exc, "problem_mark", None))
    context = getattr(exc, "context", None)
    return f"{where(context, getattr(exc, 'context_mark', None))}: {found}" if context else found


def load_stack_file(path: str | Path) -> StackConfig:
    return parse_stack(read_stack_file(path))


def from_pulumi_config() -> StackConfig:
    """Read the running program's config (what `pulumi up` or the offline plan set)."""
    import json

    import pulumi

    values: dict[str, Any] = {}
    cfg = pulumi.Config(PROJECT)
    for key in KNOWN_KEYS:
        if key == "secrets":
            # only the names are needed here; values stay Pulumi secrets (see secret_values()).
            raw = pulumi.runtime.get_config(f"{PROJECT}:secrets")
            if raw is not None:
                try:
                    values["secrets"] = {k: "<secret>" for k in json.loads(raw)}
                except (ValueError, TypeError):
                    values["secrets"] = raw
            continue
        raw = cfg.get(key)
        if raw is None:
            continue
        try:
            values[key] = json.loads(raw)
        except ValueError:
            values[key] = raw
    for full_key in _extra_keys():
        values[full_key] = "<unknown>"
    gcp_project = pulumi.Config("gcp").get("project")
    if gcp_project is not None:
        values["gcp:project"] = gcp_project
    return parse_stack(values)


def _extra_keys() -> list[str]:
    """Config keys in our namespace that no section knows about (typos)."""
    from pulumi.runtime import config as runtime_config

    keys = []
    for full_key in runtime_config.CONFIG.get():
        namespace, _, key = full_key.partition(":")
        if namespace == PROJECT and key.split(".")[0] not in KNOWN_KEYS:
            keys.append(full_key)
    return keys


def as_plain(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(by_alias=True, exclude_none=True)
