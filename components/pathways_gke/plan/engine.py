"""Run the real program under Pulumi's mock engine and record every registration.

What `pulumi preview` would send to the engine is what we record: type, name, parent,
dependencies, the input properties (Pulumi wire names) and the resource options. Values
that only exist after creation are "<computed>" (as a first preview shows them), and
secrets are "<secret>" — never their plaintext.
"""

from __future__ import annotations

import hashlib
import os
import json
import runpy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional


from .. import tokens
from ..config.stack_file import SECRET_DIGEST, SECRET_PLACEHOLDER, cli_config
from ..property_paths import COMPUTED

SECRET = "<secret>"


@dataclass
class PlanResource:
    urn: str
    type: str
    name: str
    parent: Optional[str]
    custom: bool
    depends_on: list[str]
    inputs: dict[str, Any]
    options: dict[str, Any]
    remote: bool = False
    read: bool = False
    outputs: dict[str, Any] = field(default_factory=dict)
    # input key -> URNs its value came from (the engine's delete-before-replace cascade follows these)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = {
            "urn": self.urn, "type": self.type, "name": self.name, "parent": self.parent,
            "custom": self.custom, "dependsOn": self.depends_on, "inputs": self.inputs, "options": self.options,
        }
        if self.remote:
            out["remote"] = True
        if self.read:
            out["read"] = True
        if self.outputs:
            out["outputs"] = self.outputs
        if self.property_dependencies:
            out["propertyDependencies"] = self.property_dependencies
        return out


@dataclass
class Plan:
    stack: str
    project: str
    resources: list[PlanResource]
    outputs: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "project": self.project,
            "resources": [r.to_json() for r in self.resources],
            "outputs": self.outputs,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n"

    def by_urn(self) -> dict[str, PlanResource]:
        return {r.urn: r for r in self.resources}

    def of_type(self, type_: str) -> list[PlanResource]:
        return [r for r in self.resources if r.type == type_]

    def named(self, name: str) -> PlanResource:
        matches = [r for r in self.resources if r.name == name]
        if len(matches) != 1:
            raise KeyError(f"{len(matches)} resources named {name!r}")
        return matches[0]

    def kubernetes_objects(self) -> list[dict[str, Any]]:
        """Every Kubernetes object we render (custom kubernetes:* resources with apiVersion/kind)."""
        objects = []
        for r in self.resources:
            if tokens.is_kubernetes_type(r.type) and r.custom and "apiVersion" in r.inputs and "kind" in r.inputs:
                objects.append(r.inputs)
        return objects


def plain(value: Any) -> Any:
    """Engine property values -> JSON: unknowns and secrets become markers, integral floats ints."""
    from pulumi.output import Unknown
    from pulumi.runtime import rpc

    if isinstance(value, dict):
        if value.get(rpc._special_sig_key) == rpc._special_secret_sig:
            return secret_marker(value.get("value"))
        return {k: plain(v) for k, v in sorted(value.items()) if v is not None}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Unknown) or (isinstance(value, str) and value == rpc.UNKNOWN):
        return COMPUTED
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and SECRET_PLACEHOLDER in value:
        return secret_marker(value)
    return value


def secret_marker(value: Any) -> str:
    """How a plan shows a secret: `<secret>`, or `<secret:DIGEST>` when it holds offline `secure:` values, DIGEST
    their salted ciphertext digests (stack_file.secret_digest; combined when several), so that a changed secret
    value is a changed input ("changed (secret)") while the value never appears."""
    digests = SECRET_DIGEST.findall(json.dumps(value, sort_keys=True, default=str))
    if not digests:
        return SECRET
    if len(digests) == 1:
        return f"<secret:{digests[0]}>"
    return f"<secret:{hashlib.sha256(' '.join(digests).encode()).hexdigest()[:12]}>"


def _make_monitor_class():
    import pulumi
    from pulumi.runtime import mocks, rpc

    class RecordingMonitor(mocks.MockMonitor):
        """A MockMonitor that keeps parents, dependencies and options (the stock one drops them)."""

        def __init__(self, mock: mocks.Mocks):
            super().__init__(mock)
            self.records: list[PlanResource] = []
            self.stack_urn: Optional[str] = None
            self.stack_outputs: dict[str, Any] = {}

        def make_urn(self, parent: str, type_: str, name: str) -> str:
            # Like the engine: the parent's whole type chain, without the root Stack
            # (the stock mock keeps only the parent's last type and keeps the Stack).
            if parent and parent != self.stack_urn:
                type_ = parent.split("::")[2] + "$" + type_
            return "urn:pulumi:" + "::".join([pulumi.get_stack(), pulumi.get_project(), type_, name])

        def RegisterResource(self, request):
            response = _with_thread_loop(super().RegisterResource, request)
            if request.type == tokens.STACK:
                self.stack_urn = response.urn
                return response
            self.records.append(self._record(request, response.urn))
            return response

        def Invoke(self, request):
            response = _with_thread_loop(super().Invoke, request)
            if UNKNOWN_RESULT in getattr(response, "return").fields:
                # as the engine answers an invoke it cannot serve yet: the whole result unknown (pulumi
                # sdk/python/lib/pulumi/runtime/invoke.py, `resp.unknown`)
                return type(response)(unknown=True)
            return response

        def ReadResource(self, request):
            response = _with_thread_loop(super().ReadResource, request)
            record = PlanResource(
                urn=response.urn, type=request.type, name=request.name, parent=self._parent(request.parent),
                custom=True, depends_on=sorted(set(request.dependencies)), read=True,
                inputs=plain(rpc.deserialize_properties(request.properties, keep_unknowns=True)) or {},
                options={"id": request.id, "provider": _provider_urn(request.provider)},
            )
            self.records.append(record)
            return response

        def RegisterResourceOutputs(self, request):
            outputs = plain(rpc.deserialize_properties(request.outputs, keep_unknowns=True)) or {}
            if request.urn == self.stack_urn:
                self.stack_outputs = outputs
            else:
                for record in self.records:
                    if record.urn == request.urn:
                        record.outputs = outputs
            return super().RegisterResourceOutputs(request)

        def _parent(self, parent: str) -> Optional[str]:
            return None if not parent or parent == self.stack_urn else parent

        def _retain_on_delete(self, request) -> bool:
            """retainOnDelete as the engine applies it: a child that leaves it unset inherits its parent's
            (pulumi/pulumi pkg/resource/deploy/source_eval.go, inheritFromParent; the SDK sends it unset)."""
            try:
                given = request.HasField("retainOnDelete")
            except ValueError:  # an SDK whose field is not optional: what it sent is what counts
                given = True
            if given or not request.parent:
                return bool(request.retainOnDelete)
            parent = next((r for r in self.records if r.urn == request.parent), None)
            return bool(parent.options.get("retainOnDelete")) if parent is not None else False

        def _record(self, request, urn: str) -> PlanResource:
            inputs = plain(rpc.deserialize_properties(request.object, keep_unknowns=True)) or {}
            options: dict[str, Any] = {
                "protect": bool(request.protect),
                "ignoreChanges": sorted(request.ignoreChanges),
                "replaceOnChanges": sorted(request.replaceOnChanges),
                "deleteBeforeReplace": bool(request.deleteBeforeReplace),
                "aliases": sorted(_alias_text(a) for a in request.aliases),
                "provider": _provider_urn(request.provider),
                "retainOnDelete": self._retain_on_delete(request),
            }
            replace_with = list(getattr(request, "replace_with", []) or [])
            if replace_with:
                options["replaceWith"] = sorted(replace_with)
            if request.providers:
                options["providers"] = {k: _provider_urn(v) for k, v in sorted(request.providers.items())}
            timeouts = request.customTimeouts
            if timeouts.create or timeouts.update or timeouts.delete:
                options["customTimeouts"] = {k: v for k, v in (("create", timeouts.create),
                                             ("update", timeouts.update), ("delete", timeouts.delete)) if v}
            if request.deletedWith:
                options["deletedWith"] = request.deletedWith
            if len(request.transforms):
                # callbacks the engine runs on the children of packaged components (not executed offline)
                options["transforms"] = len(request.transforms)
            return PlanResource(
                urn=urn, type=request.type, name=request.name, parent=self._parent(request.parent),
                custom=bool(request.custom), remote=bool(request.remote),
                depends_on=sorted(set(request.dependencies)), inputs=inputs, options=options,
                property_dependencies={key: sorted(set(deps.urns)) for key, deps
                                       in sorted(request.propertyDependencies.items()) if deps.urns},
            )

    return RecordingMonitor


def _with_thread_loop(call: Callable[[Any], Any], request: Any) -> Any:
    """Run a mock-monitor call on a worker thread inside an event loop that is closed afterwards.

    The SDK's MockMonitor creates an event loop in each worker thread it is called on and never closes it;
    those loops surface at interpreter exit as "unclosed event loop" ResourceWarnings."""
    import asyncio
    import threading

    if threading.current_thread() is threading.main_thread():
        return call(request)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return call(request)
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def _provider_urn(reference: str) -> Optional[str]:
    if not reference:
        return None
    # a provider reference is "<provider urn>::<provider id>"; a URN itself has three "::"
    return reference.rsplit("::", 1)[0] if reference.count("::") >= 4 else reference


def _alias_text(alias: Any) -> str:
    if getattr(alias, "urn", ""):
        return alias.urn
    spec = getattr(alias, "spec", None) or alias
    parts = [f"{k}={getattr(spec, k)}" for k in ("name", "type", "stack", "project", "parentUrn")
             if getattr(spec, k, "")]
    return ",".join(parts) or str(alias)


# Invokes whose whole result is unknown offline (typed results refuse a partly unknown answer): an adopted
# cluster's node pools (names, service accounts) and the project number (the Compute Engine default's email).
# Mocks that answer them (tests of the adopted path) return their values instead.
UNKNOWN_INVOKES = (tokens.GET_CLUSTER, tokens.GET_PROJECT)
UNKNOWN_RESULT = "__pathways_gke_offline_unknown__"


def _make_mocks():
    from pulumi.runtime import Mocks, rpc

    class PreviewMocks(Mocks):
        """Echo inputs as state; everything else stays unknown, as in a first `pulumi preview`."""

        def new_resource(self, args):
            state = dict(args.inputs)
            if args.resource_id:  # read of an existing resource: we do not know its state offline
                return args.resource_id, state
            return "", state

        def call(self, args):
            # invokes (e.g. reading an adopted cluster) need the cloud: unknown offline
            if args.token in UNKNOWN_INVOKES:
                return {UNKNOWN_RESULT: True}
            result = {k: v for k, v in args.args.items()}
            for key in ("endpoint", "masterAuths", "selfLink", "id"):
                result.setdefault(key, rpc.UNKNOWN)
            return result

    return PreviewMocks()


def preview_mocks() -> Any:
    """The default mocks of an offline plan (inputs echoed, reads and invokes unknown)."""
    return _make_mocks()


def run_program(program: Callable[[], Any], *, stack: str, project: str, config: Mapping[str, str],
                secret_keys: list[str], mocks: Optional[Any] = None) -> Plan:
    """Run `program` as `pulumi preview` would, with mocks instead of providers.

    `mocks`: a `pulumi.runtime.Mocks` to answer reads and invokes instead of the default preview mocks
    (e.g. a StackReference's outputs); wrap `preview_mocks()` to keep the default for the rest.
    """
    import pulumi
    from pulumi.runtime import settings

    fresh_event_loop()
    # a fresh root Stack per run: set_mocks creates one only if none exists (pulumi/runtime/mocks.py)
    settings.set_root_resource(None)  # type: ignore[arg-type]  # the SDK resets with None; its hint omits it
    mocks = mocks if mocks is not None else _make_mocks()
    monitor = _make_monitor_class()(mocks)
    logger, logged = _program_log()
    pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=True, monitor=monitor, logger=logger)
    pulumi.runtime.set_all_config(dict(config), list(secret_keys))
    exports: dict[str, Any] = {}

    def program_and_exports():
        program()
        return _collect_exports(settings.get_root_resource(), exports)

    from ..deferred import FAILURES

    FAILURES.clear()
    try:
        pulumi.runtime.test(program_and_exports)()
    except Exception as exc:  # the SDK re-wraps a value's failure ("While processing resource ..."): report ours
        config_error = _config_error_in(exc) or (FAILURES[0] if FAILURES else None)
        if config_error is not None:
            raise config_error from None
        raise
    finally:
        _show_program_log(logged, exports)
    resources = sorted(monitor.records, key=lambda r: r.urn)
    return Plan(stack=stack, project=project, resources=resources, outputs=dict(sorted(exports.items())))


def _program_log() -> tuple[Any, list[str]]:
    """A logger that keeps the program's `pulumi.log` messages (the mock engine's default prints each at once)."""
    import logging

    logged: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                logged.append(record.getMessage())

    logger = logging.getLogger("pathways_gke.plan.program")
    logger.handlers[:] = [Keep()]
    logger.propagate = False
    return logger, logged


def _show_program_log(logged: list[str], exports: Mapping[str, Any]) -> None:
    """The program's warnings on stderr, less those the plan shows as its actions required (said once)."""
    import sys

    shown = exports.get("actionsRequired")
    shown = set(shown) if isinstance(shown, list) else set()
    for message in dict.fromkeys(logged):
        if message not in shown:
            print(message, file=sys.stderr)


def _config_error_in(exc: BaseException) -> Any:
    """The ConfigError an exception was caused by (an Output validated at apply time), if any."""
    from ..errors import ConfigError

    seen: set[int] = set()
    current: Optional[BaseException] = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ConfigError):
            return current
        seen.add(id(current))
        current = current.__cause__ if current.__cause__ is not None else (
            None if current.__suppress_context__ else current.__context__)
    return None


def _current_event_loop():
    """The thread's current event loop, or None (asked without the deprecation warning of 3.12+)."""
    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            return asyncio.get_event_loop()
        except RuntimeError:
            return None


def close_event_loop() -> None:
    """Close the loop the SDK leaves open (quiet interpreter exit, no leaked selector)."""
    loop = _current_event_loop()
    if loop is not None and not loop.is_running() and not loop.is_closed():
        loop.close()


def open_event_loop() -> None:
    """Keep the current event loop unless a finished CLI run closed it (then start a new one).

    For callers that run programs under their own mocks in a process where `pathways-gke` commands also ran."""
    import asyncio

    loop = _current_event_loop()
    if loop is None or loop.is_closed():
        asyncio.set_event_loop(asyncio.new_event_loop())


def fresh_event_loop() -> None:
    """Each run gets its own event loop."""
    import asyncio

    close_event_loop()
    asyncio.set_event_loop(asyncio.new_event_loop())


def _collect_exports(root: Any, into: dict[str, Any]) -> Any:
    """Stack exports as the preview shows them (the mock engine never registers them)."""
    import pulumi

    async def collect():
        for name, value in getattr(root, "outputs", {}).items():
            output = pulumi.Output.from_input(value)
            if await output.is_secret():
                into[name] = SECRET
            else:
                into[name] = plain(await output.future(with_unknowns=True))

    return pulumi.Output.from_input(collect())


# --- stack files -> engine config ------------------------------------------------------------


def flatten_config(config: Mapping[str, Any], project: str = "pathways-gke") -> tuple[dict[str, str], list[str]]:
    """Stack-file config -> the flat map of strings the CLI passes a program, and the secret keys.

    Exactly the CLI's conversion (config/stack_file.py): bare keys get the project's namespace, objects
    become Go JSON text; `secure:` values cannot be decrypted offline and become a placeholder, marked secret.
    """
    return cli_config(config, project)


def project_name(project_dir: Path) -> str:
    from ..config.stack_file import read_project

    return str(read_project(project_dir).get("name") or "pathways-gke")


def stack_file(project_dir: Path, stack: str) -> Path:
    from ..config.stack_file import read_project

    config_dir = Path(project_dir) / str(read_project(project_dir).get("stackConfigDir") or ".")
    return config_dir / f"Pulumi.{stack}.yaml"


def program_for(project_dir: Path) -> Callable[[], Any]:
    """The project's own __main__.py when there is one, else the library's program."""
    main_py = project_dir / "__main__.py"
    if main_py.exists():
        return lambda: runpy.run_path(str(main_py), run_name="__main__")
    from ..program import main

    return main


def plan_config(config: Mapping[str, Any], *, stack: str, project: str = "pathways-gke",
                program: Optional[Callable[[], Any]] = None, validate: bool = True) -> Plan:
    """Plan a stack-file `config:` mapping (as `read_stack_file` decoded it).

    The program receives exactly the strings the CLI would pass; with `validate`, those same strings go
    through the program's own reader first (`stack_from_cli`), so an invalid config raises ConfigError
    before anything runs, with the messages `pulumi up` would print."""
    from ..config.stack import assume_secret_names
    from ..config.stack_file import namespaced_config, secure_paths

    config = namespaced_config(config, project)
    flat, secret_keys = flatten_config(config, project)
    return plan_flat(assume_secret_names(flat, secret_keys), secret_keys, stack=stack, project=project,
                     program=program, validate=validate, secure=secure_paths(config))


def plan_flat(flat: Mapping[str, str], secret_keys: list[str], *, stack: str, project: str = "pathways-gke",
              program: Optional[Callable[[], Any]] = None, validate: bool = True,
              secure: Optional[Mapping[str, Any]] = None) -> Plan:
    """Plan the key -> string map the CLI would hand the program (`config.stack.offline_cli_config`)."""
    from ..config.stack import PROJECT, stack_from_cli

    if validate and (project == PROJECT or program is None):
        stack_from_cli(flat, secret_keys, secure)
    if program is None:
        from ..program import main as default_program

        program = default_program
    return run_program(program, stack=stack, project=project, config=flat, secret_keys=secret_keys)


def plan_stack(stack: str, project_dir: Path | str = ".", esc: Optional[Path | str] = None) -> Plan:
    project_dir = Path(project_dir).resolve()
    path = stack_file(project_dir, stack)
    if not path.exists():
        raise FileNotFoundError(f"no stack file {path} (stacks: "
                                f"{', '.join(sorted(p.name for p in path.parent.glob('Pulumi.*.yaml'))) or 'none'})")
    return plan_file(path, project_dir, stack=stack, esc=esc)


def plan_file(path: Path | str, project_dir: Path | str = ".", *, stack: Optional[str] = None,
              esc: Optional[Path | str] = None) -> Plan:
    """Plan a stack file with the project's program, run from the project directory as Pulumi does
    (so relative paths in the config, such as a local JobSet manifest, mean the same thing)."""
    import contextlib

    from ..config.stack import offline_cli_config

    # absolute but not resolved: `--config <(sops -d ...)` is /dev/fd/N, a link to a pipe that only its own name opens
    path, project_dir = Path(os.path.abspath(path)), Path(project_dir).resolve()
    if stack is None:
        name = path.name
        stack = name[len("Pulumi."):-len(".yaml")] if name.startswith("Pulumi.") and name.endswith(".yaml") \
            else path.stem
    flat, secret_keys, secure = offline_cli_config(path, project_dir, stack=stack, esc=esc)
    with contextlib.chdir(project_dir):
        return plan_flat(flat, secret_keys, stack=stack, project=project_name(project_dir),
                         program=program_for(project_dir), secure=secure)
