"""The JobSet controller's configuration: the feature gates the stack turns on, written into the release's
ConfigMap `jobset-manager-config` (its `controller_manager_config.yaml`, kind Configuration of
config.jobset.x-k8s.io/v1alpha1, whose `featureGates` the controller reads at start, JobSet >= v0.11.0).

Pure data and functions. The controller reads its configuration only when it starts, so the Deployment's pod
template carries the gates as an annotation: a change of gates rolls the controller. Transforms do not run under the
mock engine, so the gates are also recorded in the readiness ConfigMap (`jobset.featureGates`), where the plan and
the diff show them.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Mapping, Optional

import yaml

from ..config.stack import StackConfig
from ..releases import JOBSET_CONFIG_KEY, JOBSET_CONFIG_MAP, RESTART_JOB_GATE
from ..tokens import CONFIG_MAP, DEPLOYMENT

GATES_ANNOTATION = "pathways-gke/jobset-feature-gates"


def effective_feature_gates(stack: StackConfig) -> dict[str, bool]:
    """`jobset.featureGates`, plus RestartJob on when a workload restarts per slice (its rule needs the gate)."""
    gates = dict(stack.jobset.feature_gates)
    if any(w.restart.per_slice for w in stack.workloads):
        gates.setdefault(RESTART_JOB_GATE, True)
    return dict(sorted(gates.items()))


def describe_gates(gates: Mapping[str, bool]) -> str:
    return json.dumps(dict(sorted(gates.items())), separators=(",", ":"))


def with_feature_gates(type_: str, props: Mapping[str, Any], gates: Mapping[str, bool]) -> Optional[dict[str, Any]]:
    """The install object's properties with the gates applied (the ConfigMap's Configuration, the controller
    Deployment's pod-template annotation); None for every other object or when there are no gates."""
    if not gates:
        return None
    if type_ == CONFIG_MAP and (props.get("metadata") or {}).get("name") == JOBSET_CONFIG_MAP:
        out = copy.deepcopy(dict(props))
        data = dict(out.get("data") or {})
        configuration = yaml.safe_load(data.get(JOBSET_CONFIG_KEY) or "") or {}
        configuration["featureGates"] = {**(configuration.get("featureGates") or {}), **gates}
        data[JOBSET_CONFIG_KEY] = yaml.safe_dump(configuration, sort_keys=False)
        out["data"] = data
        return out
    if type_ == DEPLOYMENT:  # registered on the JobSet install only: its one Deployment is the controller
        out = copy.deepcopy(dict(props))
        template = out.setdefault("spec", {}).setdefault("template", {})
        annotations = template.setdefault("metadata", {}).setdefault("annotations", {})
        annotations[GATES_ANNOTATION] = describe_gates(gates)
        return out
    return None
