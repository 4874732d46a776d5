"""The LeaderWorkerSet webhook gate: objects that make workloads wait until the LWS webhook really answers.

The LWS controller's `/readyz` is a plain ping that does not wait for its internal webhook certificates
(kubernetes-sigs/lws `cmd/main.go` `setupHealthzAndReadyzCheck`), so "Deployment Available" — what awaiting
the release manifest gives — can come before the webhook serves with a valid certificate; an LWS created in
that window fails at the mutating webhook (failurePolicy Fail). pulumi-kubernetes retries a create only on
NotFound / no-match errors, not on a webhook failure.

The gate is a Job on the CPU pool that runs `kubectl create --dry-run=server` of a zero-replica probe LWS: a
server-side dry run goes through both LWS admission webhooks (they declare `sideEffects: None`) and persists
nothing. It fails until the webhook answers; the Job's pod backoff retries it (10 s, 20 s, 40 s, ... capped at
6 min). pulumi-kubernetes awaits a Job until it completes, so everything that depends on the gate is created
only after an LWS create would succeed. Pure data (no Pulumi import).
"""

from __future__ import annotations

from typing import Any

import yaml

from ..naming import LWS_API_VERSION, LWS_GATE, MANAGED_BY_LABELS, NODE_POOL_LABEL

PROBE_NAME = "pathways-gke-lws-probe"
KUBECTL = "/bin/kubectl"  # where registry.k8s.io/kubectl images keep the binary (they have no shell)
PROBE_FILE = "probe.yaml"
GATE_BACKOFF_LIMIT = 10
GATE_DEADLINE_SECONDS = 1200


def probe_lws(namespace: str, image: str) -> dict[str, Any]:
    """A LeaderWorkerSet that is never created for real (dry run) and would run nothing (0 replicas)."""
    return {
        "apiVersion": LWS_API_VERSION, "kind": "LeaderWorkerSet",
        "metadata": {"name": PROBE_NAME, "namespace": namespace},
        "spec": {"replicas": 0, "leaderWorkerTemplate": {"size": 1, "workerTemplate": {"spec": {
            "containers": [{"name": "probe", "image": image, "command": ["kubectl", "version", "--client"]}]}}}},
    }


def gate_objects(namespace: str, image: str, cpu_pool: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """(child suffix, object) of the gate, in creation order: identity, permission, probe, Job."""
    meta = {"name": LWS_GATE, "namespace": namespace, "labels": dict(MANAGED_BY_LABELS)}
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": dict(meta)}
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": dict(meta),
            "rules": [{"apiGroups": [LWS_API_VERSION.split("/")[0]], "resources": ["leaderworkersets"],
                       "verbs": ["create"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": dict(meta),
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": LWS_GATE},
               "subjects": [{"kind": "ServiceAccount", "name": LWS_GATE, "namespace": namespace}]}
    probe = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": dict(meta),
             "data": {PROBE_FILE: yaml.safe_dump(probe_lws(namespace, image), sort_keys=False)}}
    job = {
        "apiVersion": "batch/v1", "kind": "Job", "metadata": dict(meta),
        "spec": {
            "backoffLimit": GATE_BACKOFF_LIMIT,
            "activeDeadlineSeconds": GATE_DEADLINE_SECONDS,
            "template": {
                "metadata": {"labels": dict(MANAGED_BY_LABELS)},
                "spec": {
                    "serviceAccountName": LWS_GATE,
                    "restartPolicy": "Never",
                    "nodeSelector": {NODE_POOL_LABEL: cpu_pool},
                    "containers": [{
                        "name": "webhook-check",
                        "image": image,
                        "command": [KUBECTL],
                        "args": ["create", "--dry-run=server", "-f", f"/probe/{PROBE_FILE}"],
                        "securityContext": {"runAsNonRoot": True, "runAsUser": 65532,
                                            "allowPrivilegeEscalation": False,
                                            "capabilities": {"drop": ["ALL"]}},
                        "volumeMounts": [{"name": "probe", "mountPath": "/probe", "readOnly": True}],
                    }],
                    "volumes": [{"name": "probe", "configMap": {"name": LWS_GATE}}],
                },
            },
        },
    }
    return (("lws-gate-sa", account), ("lws-gate-role", role), ("lws-gate-binding", binding),
            ("lws-gate-probe", probe), ("lws-gate", job))
