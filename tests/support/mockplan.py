"""A small recording mock engine for component tests (a pulumi.runtime.Mocks with a MockMonitor subclass).

Records, per registration: type, name, parent, custom/remote, decoded inputs and the options the
engine would receive (dependencies, protect, provider(s), transforms count). Used until / beside the
shared plan engine in pathways_gke.plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import pulumi
from pulumi.runtime import mocks as pmocks
from pulumi.runtime import rpc, settings



@dataclass
class Registration:
    urn: str
    type: str
    name: str
    parent: str
    custom: bool
    remote: bool
    inputs: dict[str, Any]
    depends_on: list[str]
    protect: bool
    providers: dict[str, str]
    provider: str
    transforms: int


@dataclass
class Recording:
    resources: list[Registration] = field(default_factory=list)

    def by_name(self, name: str) -> Registration:
        found = [r for r in self.resources if r.name == name]
        assert len(found) == 1, f"{name}: {len(found)} registrations among {[r.name for r in self.resources]}"
        return found[0]

    def of_type(self, type_: str) -> list[Registration]:
        return [r for r in self.resources if r.type == type_]

    def urn(self, name: str) -> str:
        return self.by_name(name).urn


class _Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        return f"{args.name}_id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


class RecordingMonitor(pmocks.MockMonitor):
    def __init__(self, recording: Recording):
        super().__init__(_Mocks())
        self.recording = recording

    def RegisterResource(self, request):  # noqa: N802 (gRPC name)
        response = super().RegisterResource(request)
        inputs = rpc.deserialize_properties(request.object, keep_unknowns=True)
        self.recording.resources.append(Registration(
            urn=response.urn, type=request.type, name=request.name, parent=request.parent,
            custom=request.custom, remote=request.remote, inputs=_plain(inputs),
            depends_on=sorted(request.dependencies), protect=bool(request.protect),
            providers=dict(request.providers), provider=request.provider,
            transforms=len(request.transforms),
        ))
        return response


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is rpc.UNKNOWN:
        return "<computed>"
    return value


def record(program: Callable[[], Any], stack: str = "test", preview: bool = False) -> Recording:
    """Run `program` under a fresh recording mock engine and return every registration."""
    recording = Recording()
    settings.set_root_resource(None)
    pulumi.runtime.set_mocks(_Mocks(), project="pathways-gke", stack=stack, preview=preview,
                             monitor=RecordingMonitor(recording))

    @pulumi.runtime.test
    def run():
        program()

    run()
    return recording
