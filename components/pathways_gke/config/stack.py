"""The whole stack config: every section parsed, then checked against each other.

Each section is validated on its own (a list section entry by entry) so that one bad section does not hide the
problems of another; then the root model `StackConfig` (config/model.py) is built from the sections, and its
validator runs the cross-section checks (with "" / "default" for a bad project id or namespace, so they still
run). The keys and the sections are the root model's fields. All problems are raised together as one
ConfigError, before the program registers anything.
"""

from __future__ import annotations

import json

import re
from pathlib import Path
from typing import Any, Mapping, Optional, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

from ..errors import ConfigError, Problem, allowed, did_you_mean
from .checks import tpu_pool_problems
from .model import STACK_KEYS, StackConfig
from .base import _inner_model, problems_from
from .cluster import CpuPoolConfig
from .stack_file import (NESTING_MESSAGE, SECRET_PLACEHOLDER, cli_config, go_json, is_secure, json_nesting_exceeds,
                         read_stack_config, read_stack_document, secure_paths, stack_salt)
from .stack_file import read_stack_file  # noqa: F401  (re-exported: config.read_stack_file)
from .types import NAMESPACE, PROJECT_ID

PROJECT = "pathways-gke"


def _sections_of(root: type[BaseModel]) -> dict[str, tuple[Any, Any, Any]]:
    """The root model's sections, in its order: stack key -> (the model of the section, or of one entry of a list
    section; what validates the section (the model, or a list adapter); its value when absent, None = required).
    Its other fields (the project id, the namespace, the secrets' names) are not sections."""
    out: dict[str, tuple[Any, Any, Any]] = {}
    for name, field in root.model_fields.items():
        listed = get_origin(field.annotation) is tuple
        model: Any = get_args(field.annotation)[0] if listed else field.annotation
        if _inner_model(model) is None:
            continue
        out[field.alias or name] = (model, TypeAdapter(list[model]) if listed else model,
                                    None if field.is_required() else [] if listed else {})
    return out


_SECTIONS_OF_STACK = _sections_of(StackConfig)
_ROOT_MODELS: dict[str, Any] = {key: model for key, (model, _, _) in _SECTIONS_OF_STACK.items()}
"""Stack key -> the model of the section (of one entry of a list section; a workload is a union)."""
_SECTIONS: dict[str, tuple[Any, Any]] = {key: (schema, default)
                                         for key, (_, schema, default) in _SECTIONS_OF_STACK.items()}
"""Stack key -> (the model or list adapter that validates it, its value when absent; None = required)."""
_ITEMS = {key: TypeAdapter(_ROOT_MODELS[key]) for key, (schema, _) in _SECTIONS.items() if isinstance(schema, TypeAdapter)}
"""One list item of a list section (a workload is a union told apart by its runtime)."""
KNOWN_KEYS = tuple(key for key in STACK_KEYS.values() if ":" not in key)
"""Our keys (`pathways-gke:<key>`): the root model's, but gcp:project."""


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



    project = gcp_project if isinstance(gcp_project, str) else ""
    if partial and all(k in parsed for k in ("cluster", "kueue")):
        # some list items failed, so there is no root model to check: still check the pools that parsed, against
        # a draft built without validation (cross-references wait for a clean parse)
        draft = StackConfig.model_construct(project=project, cluster=parsed["cluster"],
                                            cpu_pool=parsed.get("cpuPool") or CpuPoolConfig(), kueue=parsed["kueue"],
                                            namespace=namespace)
        pools = partial.get("tpuPools") or list(enumerate(parsed.get("tpuPools", ())))
        for index, pool in pools:
            problems.extend(tpu_pool_problems(draft, pool, f"tpuPools[{index}]"))
    elif all(k in parsed for k in _SECTIONS):
        # every section parsed: the root model checks them against each other (its validator), also when the
        # project id, the namespace or the secrets were bad (checked above; the model gets "", "default", {})
        try:
            stack = StackConfig.model_validate({"gcp:project": project, **parsed, "namespace": namespace,
                                                "secrets": secrets})
        except ValidationError as exc:
            problems.extend(problems_from(exc, StackConfig, []))
        else:
            if not problems:
                return stack
    raise ConfigError(problems)


def load_stack_file(path: str | Path, project: str = PROJECT, *, project_dir: str | Path | None = None,
                    esc: str | Path | None = None) -> StackConfig:
    """A stack file validated exactly as `pulumi up` would see it (read as the CLI reads it, then its strings).

    With `project_dir`, the project's Pulumi.yaml config (values, defaults) is merged as the CLI merges it."""
    flat, secret_keys, paths = offline_cli_config(path, project_dir, esc=esc, project=project)
    return stack_from_cli(flat, secret_keys, paths)


def offline_cli_config(path: str | Path, project_dir: str | Path | None = None, *, stack: Optional[str] = None,
                       esc: str | Path | None = None, project: Optional[str] = None,
                       ) -> tuple[dict[str, str], list[str], dict[str, list[str]]]:
    """What `pulumi up` would hand the program for a stack file (stack_file.read_stack_config, then the CLI's
    strings), with `secure:` values as placeholders; and where the `secure:` values are (for the messages).

    A `secrets` set as one encrypted value (`pulumi config set --secret pathways-gke:secrets '{...}'`) cannot be
    opened offline: the plan assumes it holds every name a workload's secretEnv refers to."""
    config, name = read_stack_config(path, project_dir, stack=stack, esc=esc, known_keys=KNOWN_KEYS)
    if esc is not None and f"{name}:secrets" in config:  # `esc env open` prints secrets in the clear
        config[f"{name}:secrets"] = _as_secure(config[f"{name}:secrets"])
    flat, secret_keys = cli_config(config, project or name, salt=stack_salt(read_stack_document(path)))
    flat = assume_secret_names(flat, secret_keys)
    return flat, secret_keys, secure_paths(config)


def _as_secure(value: Any) -> Any:
    if isinstance(value, Mapping) and not is_secure(value):
        return {k: _as_secure(v) for k, v in value.items()}
    return value if is_secure(value) else {"secure": "esc"}


def assume_secret_names(flat: Mapping[str, str], secret_keys: Any) -> dict[str, str]:
    """Offline only: a whole-map encrypted `secrets` -> every name the workloads' secretEnv refers to (placeholders)."""
    key = f"{PROJECT}:secrets"
    out = dict(flat)
    whole = out.get(key)
    if not (isinstance(whole, str) and whole.startswith(SECRET_PLACEHOLDER)) or key not in secret_keys:
        return out
    names: set[str] = set()
    try:
        workloads = json.loads(out.get(f"{PROJECT}:workloads", "[]") or "[]")
    except ValueError:
        workloads = []
    for workload in workloads if isinstance(workloads, list) else []:
        secret_env = workload.get("secretEnv") if isinstance(workload, Mapping) else None
        if isinstance(secret_env, Mapping):
            names.update(v for v in secret_env.values() if isinstance(v, str))
    out[key] = go_json({name: whole for name in sorted(names)})  # each name: the whole map's digest
    return out


# Keys of ours whose value is an object (read with Config.get_object): every section and `secrets`; the one
# plain string (Config.get) is `namespace`.
_OBJECT_KEYS = (*_SECTIONS, "secrets")
# namespaces of providers the program configures (their keys are theirs, never a misplaced key of ours)
_PROVIDER_NAMESPACES = ("gcp", "google-native", "kubernetes", "pulumi", "random")


def stack_from_cli(values: Mapping[str, str], secret_keys: Any = (),
                   secure_paths: Optional[Mapping[str, Any]] = None) -> StackConfig:
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
                if json_nesting_exceeds(raw):  # before json.loads, which would raise RecursionError
                    problems.append(Problem(full_key, NESTING_MESSAGE))
                    continue
                try:
                    ours[key] = json.loads(raw)
                except (ValueError, RecursionError):
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
    hidden = {key.partition(":")[2]: ours.get(key.partition(":")[2]) for key in secret_keys
              if key.partition(":")[0] == PROJECT and key.partition(":")[2] in ours
              and key.partition(":")[2] != "secrets"}
    if "gcp:project" in secret_keys:
        hidden["gcp:project"] = ours.get("gcp:project")
    problems.extend(secret_outside_secrets_problems(secret_keys, secure_paths or {}))
    try:
        stack = parse_stack(ours)
    except ConfigError as exc:
        # a key set with --secret is refused above; its own problems would quote its (decrypted) values
        raise ConfigError([*problems, *(_without_secret_values(p, hidden) for p in exc.problems
                                        if _root(p.path) not in hidden)]) from None
    if problems:
        raise ConfigError(problems)
    return stack


def _root(path: str) -> str:
    return re.split(r"[.\[]", path.partition(":")[2] if path.startswith(f"{PROJECT}:") else path, maxsplit=1)[0]


_ENV_LEAF = re.compile(r"^workloads\[(\d+)\]\.env\.([A-Za-z_][A-Za-z0-9_]*)$")


def secret_outside_secrets_problems(secret_keys: Any, secure_paths: Mapping[str, Any]) -> list[Problem]:
    """A value set with --secret anywhere but under pathways-gke:secrets is refused (never plaintext in a resource).

    Under `pulumi up` the CLI decrypts it and marks the whole top-level key secret (PULUMI_CONFIG_SECRET_KEYS);
    the program would write the decrypted text into resource inputs (a pod's env, a label, a name) where the
    state and the cluster keep it in plaintext. Only `secrets` values reach pods, through a Kubernetes Secret
    (`secretEnv`). `secure_paths`: where in each key the `secure:` values are, when the stack file is at hand
    (`stack_file.secure_paths`); without it the problem names the key."""
    out: list[Problem] = []
    for key in sorted(secret_keys):
        namespace, _, name = key.partition(":")
        if key == "gcp:project":
            out.append(Problem(key, "is set with --secret, but the project id is part of resource names, IAM members "
                               "and Workload Identity pools, which are stored in plaintext; set it without --secret: "
                               "`pulumi config set gcp:project PROJECT_ID`"))
            continue
        if namespace != PROJECT or name == "secrets" or name not in KNOWN_KEYS:
            continue
        leaves = list(secure_paths.get(key) or ())
        for leaf in leaves or [name]:
            env = _ENV_LEAF.match(leaf)
            if env is not None:
                index, var = env.groups()
                secret = var.lower().replace("_", "-")
                out.append(Problem(leaf, "is a secret (`secure:`), but env values are written into the pod spec and "
                                   "the Pulumi state in plaintext; a secret reaches a pod only through "
                                   "pathways-gke:secrets and secretEnv (a Kubernetes Secret): `pulumi config rm "
                                   f"--path '{PROJECT}:{leaf}'`, `pulumi config set --secret --path "
                                   f"'{PROJECT}:secrets.{secret}' VALUE`, then set workloads[{index}].secretEnv."
                                   f"{var}: {secret}"))
            elif leaf == name:
                out.append(Problem(key, "holds a value set with --secret (`secure:`), but only values under "
                                   f"{PROJECT}:secrets may be secret: everything else is written into resource "
                                   "inputs, which the Pulumi state and the cluster keep in plaintext. Set it without "
                                   "--secret; a credential a workload needs goes under secrets and reaches its pods "
                                   "through secretEnv (`pulumi config set --secret --path "
                                   f"'{PROJECT}:secrets.NAME' VALUE`, then workloads[i].secretEnv.VAR: NAME)"))
            else:
                out.append(Problem(leaf, "is a secret (`secure:`), but only values under "
                                   f"{PROJECT}:secrets may be secret: this value is written into resource inputs, "
                                   "which the Pulumi state and the cluster keep in plaintext. Set it without --secret "
                                   f"(`pulumi config set --path '{PROJECT}:{leaf}' VALUE`); a credential a workload "
                                   "needs goes under secrets and reaches its pods through secretEnv"))
    return out


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
    return secret_name_placeholders(value)


SECRET_NAME_PLACEHOLDER = "<secret>"
"""What a secret's value is replaced by while the stack is validated: only its name is needed."""


def secret_name_placeholders(names: Mapping[str, Any]) -> dict[str, str]:
    """The `secrets` map with its values hidden: names are validated and referenced, values never read."""
    return {str(k): SECRET_NAME_PLACEHOLDER for k in names}


def from_pulumi_config() -> StackConfig:
    """Read the running program's config (what `pulumi up` or the offline plan set) with `stack_from_cli`."""
    from pulumi.runtime import config as runtime_config

    values = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    secret_keys = [key for key in values if runtime_config.is_config_secret(key)]
    return stack_from_cli(values, secret_keys, _secure_paths_of_running_stack(secret_keys))


def _secure_paths_of_running_stack(secret_keys: list[str]) -> dict[str, list[str]]:
    """Under `pulumi up`: where the running stack's file holds `secure:` values (to name them in a refusal).

    Best effort (the file is read only for the positions, never decrypted): {} when the program runs without
    its project's stack file at hand, and then the refusal names the key."""
    if not any(key.startswith(f"{PROJECT}:") and key != f"{PROJECT}:secrets" for key in secret_keys):
        return {}
    try:
        import pulumi

        from .stack_file import namespaced_config, read_project, read_stack_document

        project = read_project(".")
        path = Path(str(project.get("stackConfigDir") or ".")) / f"Pulumi.{pulumi.get_stack()}.yaml"
        config = read_stack_document(path).get("config") or {}
        return secure_paths(namespaced_config(config, str(project.get("name") or PROJECT)))
    except Exception:  # noqa: BLE001 - a hint only: the refusal stands without it
        return {}
