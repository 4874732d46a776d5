"""The tests' one mock harness is the package's own offline engine (pathways_gke.plan.engine): it runs a program
under Pulumi's mocks and records what `pulumi preview` would send for every resource (type, name, parent,
dependencies, inputs, options, registered outputs). This module adds only what tests need on top of it: a short
way to run a program, and mocks that answer reads as the cloud would and remember what the engine was sent."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

import pulumi

from pathways_gke.plan import engine
from pathways_gke.plan.engine import Plan


def run(program: Callable[[], Any], *, stack: str = "test", project: str = "pathways-gke",
        config: Optional[Mapping[str, Any]] = None, mocks: Optional[pulumi.runtime.Mocks] = None) -> Plan:
    """Run `program` under the offline engine. `config`: a stack file's `config:` mapping, passed to the program
    as the Pulumi CLI would pass it; `mocks`: e.g. a `Cloud` (default: the engine's preview mocks)."""
    flat, secret_keys = engine.flatten_config(config or {}, project)
    return engine.run_program(program, stack=stack, project=project, config=flat, secret_keys=secret_keys,
                              mocks=mocks)


class Cloud(pulumi.runtime.Mocks):
    """The engine's preview mocks, plus what a test needs to see past the plan.

    `reads`: per resource type, the state the cloud returns when a program reads an existing resource of that
    type (a StackReference, an adopted cluster); `invokes`: per function token, what a data source returns (an
    adopted cluster's node pools). `sent` holds each resource's inputs as the engine received them,
    secret values included (the plan shows "<secret>").
    """

    def __init__(self, reads: Optional[Mapping[str, Callable[[pulumi.runtime.MockResourceArgs], dict]]] = None,
                 invokes: Optional[Mapping[str, Callable[[pulumi.runtime.MockCallArgs], dict]]] = None):
        self._preview = engine.preview_mocks()
        self._reads = dict(reads or {})
        self._invokes = dict(invokes or {})  # per invoke token, what the cloud answers (a data source)
        self.sent: dict[str, dict[str, Any]] = {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        self.sent[args.name] = args.inputs
        if args.resource_id and args.typ in self._reads:
            return args.resource_id, self._reads[args.typ](args)
        return self._preview.new_resource(args)

    def call(self, args: pulumi.runtime.MockCallArgs):
        if args.token in self._invokes:
            return self._invokes[args.token](args)
        return self._preview.call(args)
