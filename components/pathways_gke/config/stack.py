"""The whole stack config: every section parsed, then checked against each other.

Each section is validated on its own so that one bad section does not hide the
problems of another; cross-section checks run on whatever parsed. All problems are
raised together as one ConfigError, before the program registers anything.
"""

from __future__ import annotations

import json

import re
from pathlib import Path
from typing import Any, Mapping

from pydantic import TypeAdapter, ValidationError

from ..errors import ConfigError, Problem, allowed, did_you_mean
from .access import BucketConfig
from .checks import cross_section_problems, tpu_pool_problems
from .model import StackConfig
from .addons import JobSetConfig, KueueConfig, LwsConfig
from .base import problems_from
from .cluster import ClusterConfig, CpuPoolConfig
from .observability import ObservabilityConfig
from .stack_file import cli_config, read_stack_file
from .tpu import TpuPoolConfig
from .types import NAMESPACE, PROJECT_ID
from .workloads import WorkloadConfig

PROJECT = "pathways-gke"


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
_ROOT_MODELS: dict[str, Any] = {
    "cluster": ClusterConfig, "cpuPool": CpuPoolConfig, "tpuPools": TpuPoolConfig,
    "jobset": JobSetConfig, "kueue": KueueConfig, "workloads": WorkloadConfig, "buckets": BucketConfig,
    "observability": ObservabilityConfig, "lws": LwsConfig,
}
_ITEMS = {key: TypeAdapter(_ROOT_MODELS[key]) for key, (schema, _) in _SECTIONS.items() if isinstance(schema, TypeAdapter)}
"""One list item of a list section (a workload is a union told apart by its runtime)."""
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

    if not isinstance(gcp_project, str) or not PROJECT_ID.matches(gcp_project):
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
                    items.append((index, _ITEMS[key].validate_python(item, by_alias=True)))
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
    if not isinstance(namespace, str) or not NAMESPACE.matches(namespace):
        problems.append(Problem("namespace", NAMESPACE.message, namespace))
        namespace = "default"
    secrets = ours.get("secrets", {}) or {}
    if not isinstance(secrets, Mapping):
        problems.append(Problem("secrets", "must be a mapping of secret names to values, not "
                                f"{type(secrets).__name__} (value not shown; set them with "
                                "`pulumi config set --secret --path 'secrets.NAME' VALUE`)"))
        secrets = {}



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


def load_stack_file(path: str | Path, project: str = PROJECT) -> StackConfig:
    """A stack file validated exactly as `pulumi up` would see it (read as the CLI reads it, then its strings)."""
    return stack_from_cli(*cli_config(read_stack_file(path), project))


# Keys of ours whose value is an object (read with Config.get_object): every section and `secrets`; the one
# plain string (Config.get) is `namespace`.
_OBJECT_KEYS = (*_SECTIONS, "secrets")
# namespaces of providers the program configures (their keys are theirs, never a misplaced key of ours)
_PROVIDER_NAMESPACES = ("gcp", "google-native", "kubernetes", "pulumi", "random")


def stack_from_cli(values: Mapping[str, str], secret_keys: Any = ()) -> StackConfig:
    """THE config reader: the key -> string map the Pulumi CLI hands the program -> a validated StackConfig.

    The program calls it with the running config (`from_pulumi_config`); `pathways-gke plan` calls it with
    the strings `stack_file.cli_config` derived from the stack file. Object keys are JSON (as
    `pulumi.Config.get_object` reads them), `namespace` is a plain string. Also refuses what the CLI would
    silently pass but the program would never read: a flat key set without `--path`, and our keys under
    another namespace. Secret values are never read here, only the names under `secrets`.
    """
    problems: list[Problem] = []
    ours: dict[str, Any] = {}
    for full_key, raw in sorted(values.items()):
        namespace, _, key = full_key.partition(":")
        head = re.split(r"[.\[]", key, maxsplit=1)[0]
        if namespace == PROJECT:
            if key != head and head in KNOWN_KEYS:
                problems.append(Problem(full_key, f"is a flat key literally named '{key}' (set without --path), which "
                                        f"the program never reads; use --path: `pulumi config rm '{full_key}'` then "
                                        f"`pulumi config set --path '{full_key}' VALUE` (it writes {head}: {{...}})"))
                continue
            if key not in KNOWN_KEYS:
                problems.append(Problem(full_key, f"unknown config key; {did_you_mean(key, KNOWN_KEYS)}"
                                        f"{allowed(KNOWN_KEYS)}"))
                continue
            if key in _OBJECT_KEYS and raw == "":
                continue  # `key:` with no value: the CLI passes "" (and warns); read as unset
            if key in _OBJECT_KEYS:
                try:
                    ours[key] = json.loads(raw)
                except ValueError:
                    ours[key] = raw  # not an object: validation says what is expected
            else:
                ours[key] = raw
        elif full_key == "gcp:project":
            ours["gcp:project"] = raw
        elif namespace not in _PROVIDER_NAMESPACES and (head in KNOWN_KEYS or did_you_mean(namespace, [PROJECT])):
            hint = did_you_mean(f"{PROJECT}:{head}", [f"{PROJECT}:{k}" for k in KNOWN_KEYS])
            problems.append(Problem(full_key, f"is under the namespace '{namespace}', which this program does not "
                                    f"read (it reads {PROJECT}:*); {hint}a key written without a namespace "
                                    f"belongs to the Pulumi project ('{namespace}' if that is the project's name): "
                                    f"write it as {PROJECT}:{head}"))
    secrets = ours.get("secrets")
    if "secrets" in ours:
        ours["secrets"] = _secret_names(secrets, problems)
    try:
        stack = parse_stack(ours)
    except ConfigError as exc:
        hidden = {key.partition(":")[2]: ours.get(key.partition(":")[2]) for key in secret_keys
                  if key.partition(":")[0] == PROJECT and key.partition(":")[2] != "secrets"}
        raise ConfigError([*problems, *(_without_secret_values(p, hidden) for p in exc.problems)]) from None
    if problems:
        raise ConfigError(problems)
    return stack


def _without_secret_values(problem: Problem, hidden: Mapping[str, Any]) -> Problem:
    """A problem under a key set with --secret, without the value (and without its text in the message)."""
    root = re.split(r"[.\[]", problem.path, maxsplit=1)[0]
    if root not in hidden:
        return problem
    message = problem.message
    for text in sorted(_strings(hidden[root]), key=len, reverse=True):
        message = message.replace(text, "<secret>")
    return Problem(problem.path, f"{message} (value not shown: {root} is a secret)")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if len(value) >= 3 else []
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _secret_names(value: Any, problems: list[Problem]) -> Any:
    """The names under `secrets`; each value must be a string (never echoed: it is a secret)."""
    if not isinstance(value, Mapping):
        return value  # parse_stack says it must be a mapping (a string here is not a secret value)
    for name, item in value.items():
        if not isinstance(item, str):
            kind = "a mapping" if isinstance(item, Mapping) else "a list" if isinstance(item, list) else \
                type(item).__name__
            problems.append(Problem(f"secrets.{name}", f"must be a string secret value; {kind} was given (value not "
                                    f"shown); set it with `pulumi config set --secret --path 'secrets.{name}' VALUE`"))
    return {str(k): "<secret>" for k in value}


def from_pulumi_config() -> StackConfig:
    """Read the running program's config (what `pulumi up` or the offline plan set) with `stack_from_cli`."""
    from pulumi.runtime import config as runtime_config

    values = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    return stack_from_cli(values, [key for key in values if runtime_config.is_config_secret(key)])
