"""The pulumi-policy adapters: `policy/__main__.py` builds its PolicyPack from `policies()`.

Each Pulumi policy's `validate` turns Pulumi's arguments into the plan-resource shape the pure
rules in policies.py read (type, name, urn, inputs, options, parent) and reports what they find.
Values unknown during preview become "<computed>" and are skipped by the rules, per value,
instead of skipping the whole resource. Constructing a `PolicyPack` starts a gRPC server and
blocks (pulumi_policy/policy.py, PolicyPack.__init__), so only `policy/__main__.py` does that; tests call `validate`.

Needs `pulumi-policy` (a dev / policy-pack dependency, not a runtime one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from . import policies

PACK_NAME = "pathways-gke"
ENFORCEMENT = {policies.MANDATORY: EnforcementLevel.MANDATORY, policies.ADVISORY: EnforcementLevel.ADVISORY,
               policies.DISABLED: EnforcementLevel.DISABLED}

CONFIG_SCHEMAS: Mapping[str, PolicyConfigSchema] = {
    "pathways-gke-no-privileged": PolicyConfigSchema(properties={
        "allowPrivileged": {
            "description": "true, or the Kubernetes object names allowed to run privileged containers",
            "oneOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string"}}],
            "default": False,
        },
    }),
    "pathways-gke-protect-production": PolicyConfigSchema(properties={
        "production": {
            "description": "treat this stack as production (unset: a cluster labelled env=prod|production is)",
            "type": "boolean",
        },
    }),
}


def plain(value: Any) -> Any:
    """Pulumi's unknown-checking proxies -> plain dicts/lists; unknown values -> "<computed>"."""
    if isinstance(value, Mapping):
        out = {}
        for key in value:
            try:
                out[key] = plain(value[key])
            except UnknownValueError:
                out[key] = policies.COMPUTED
        return out
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        items = []
        for i in range(len(value)):
            try:
                items.append(plain(value[i]))
            except UnknownValueError:
                items.append(policies.COMPUTED)
        return items
    return value


def _options(opts: Any) -> dict[str, Any]:
    return {
        "protect": bool(getattr(opts, "protect", False)),
        "ignoreChanges": list(getattr(opts, "ignore_changes", None) or ()),
        "deleteBeforeReplace": bool(getattr(opts, "delete_before_replace", False)),
        "aliases": list(getattr(opts, "aliases", None) or ()),
    }


def resource_from_args(args: ResourceValidationArgs) -> dict[str, Any]:
    return {"type": args.resource_type, "name": args.name, "urn": args.urn, "inputs": plain(args.props),
            "options": _options(args.opts), "parent": getattr(args.opts, "parent", None)}


def resource_from_policy_resource(resource: Any) -> dict[str, Any]:
    parent = getattr(resource, "parent", None)
    return {"type": resource.resource_type, "name": resource.name, "urn": resource.urn,
            "inputs": plain(resource.props), "options": _options(resource.opts),
            "parent": getattr(parent, "urn", None)}


def _settings(rule: policies.Rule, config: Mapping[str, Any]) -> dict[str, Any]:
    # Pulumi hands each policy its own config (already merged with defaults and the level removed).
    _, settings = policies.level_and_settings(rule, {rule.name: dict(config or {})})
    return settings


def _resource_validate(rule: policies.Rule):
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        resource = resource_from_args(args)
        for message in rule.check(resource, _settings(rule, args.get_config())):
            report_violation(message, None)

    validate.__name__ = f"validate_{rule.name.replace('-', '_')}"
    return validate


def _stack_validate(rule: policies.Rule):
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        resources = [resource_from_policy_resource(r) for r in args.resources]
        for resource, message in rule.check(resources, _settings(rule, args.get_config())):
            report_violation(message, resource["urn"] if resource else None)

    validate.__name__ = f"validate_{rule.name.replace('-', '_')}"
    return validate


def policies_for_pack() -> list[Any]:
    """One Pulumi policy per rule, with the rule's default enforcement level and config schema."""
    out: list[Any] = []
    for rule in policies.RULES:
        common: dict[str, Any] = dict(name=rule.name, description=rule.description, enforcement_level=ENFORCEMENT[rule.level],
                      config_schema=CONFIG_SCHEMAS.get(rule.name))
        if rule.stack:
            out.append(StackValidationPolicy(validate=_stack_validate(rule), **common))
        else:
            out.append(ResourceValidationPolicy(validate=_resource_validate(rule), **common))
    return out
