"""A small Pulumi mock harness that records every registration with its options (no CLI, no cloud)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import pulumi
from pulumi.runtime import mocks as pmocks
from pulumi.runtime import rpc, settings



@dataclass
class Registered:
    type: str
    name: str
    parent: str
    custom: bool
    inputs: dict[str, Any]
    dependencies: list[str]
    replace_on_changes: list[str]
    delete_before_replace: bool
    replace_with: list[str]
    provider: str = ""
    urn: str = ""


class EchoMocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        return [f"{args.name}-id", args.inputs]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


class RecordingMonitor(pmocks.MockMonitor):
    def __init__(self, mocks: pulumi.runtime.Mocks):
        super().__init__(mocks)
        self.registered: list[Registered] = []

    def RegisterResource(self, request):  # noqa: N802 (gRPC name)
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            self.registered.append(Registered(
                type=request.type, name=request.name, parent=request.parent, custom=request.custom,
                inputs=rpc.deserialize_properties(request.object, keep_unknowns=True) if request.custom else {},
                dependencies=list(request.dependencies), replace_on_changes=list(request.replaceOnChanges),
                delete_before_replace=request.deleteBeforeReplace,
                replace_with=list(getattr(request, "replace_with", []) or getattr(request, "replaceWith", [])),
                provider=request.provider, urn=response.urn,
            ))
        return response


@dataclass
class Run:
    monitor: RecordingMonitor
    outputs: dict[str, Any] = field(default_factory=dict)

    def by_name(self, name: str) -> Registered:
        found = [r for r in self.monitor.registered if r.name == name]
        assert len(found) == 1, [r.name for r in self.monitor.registered]
        return found[0]


def run_program(program: Callable[[], dict[str, pulumi.Output]], preview: bool = False) -> Run:
    """Run `program` under mocks (fresh root stack each time); resolve the outputs it returns."""
    settings.set_root_resource(None)
    monitor = RecordingMonitor(EchoMocks())
    pulumi.runtime.set_mocks(EchoMocks(), project="pathways-gke", stack="test", preview=preview, monitor=monitor)
    run = Run(monitor)

    @pulumi.runtime.test
    def body():
        outputs = program() or {}
        return pulumi.Output.all(**outputs).apply(run.outputs.update) if outputs else None

    body()
    return run
