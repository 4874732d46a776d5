"""Small hand-written plans shaped like plan.json (the CLI contract), for diff / graph / policy tests.

`mini_plan()` is the whole stack in miniature: cluster, CPU pool, a TPU group of slice pools, the
Kubernetes provider, the JobSet install and its CRD, a Secret and a Pathways JobSet that (like the
real one) has `replaceOnChanges: ["spec"]`, `deleteBeforeReplace` and `replaceWith` its group's pools.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Optional

STACK, PROJECT = "dev", "pathways-gke"
ROOT_T = "pathways-gke:index:PathwaysCluster"
GROUP_T = "pathways-gke:index:TpuSliceGroup"
CLUSTER_T = "gcp:container/cluster:Cluster"
POOL_T = "gcp:container/nodePool:NodePool"
PROVIDER_T = "pulumi:providers:kubernetes"
INSTALL_T = "kubernetes:yaml/v2:ConfigFile"
CRD_T = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
SECRET_T = "kubernetes:core/v1:Secret"
JOBSET_T = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"


def urn(types: list[str], name: str, stack: str = STACK) -> str:
    return f"urn:pulumi:{stack}::{PROJECT}::{'$'.join(types)}::{name}"


def resource(types: list[str], name: str, *, parent: Optional[str] = None, inputs: Optional[dict] = None,
             custom: bool = True, depends_on: tuple[str, ...] = (), **options: Any) -> dict[str, Any]:
    opts = {"protect": False, "ignoreChanges": [], "replaceOnChanges": [], "deleteBeforeReplace": False,
            "aliases": [], "provider": None, "retainOnDelete": False}
    opts.update(options)
    return {"urn": urn(types, name), "type": types[-1], "name": name, "parent": parent, "custom": custom,
            "dependsOn": sorted(depends_on), "inputs": inputs or {}, "options": opts}


def pool_inputs(index: int, topology: str = "2x4", zone: str = "us-east5-b") -> dict[str, Any]:
    return {
        "cluster": "<computed>", "location": "us-east5", "name": f"pw-dev-main-{index}", "nodeCount": 2,
        "nodeLocations": [zone],
        "nodeConfig": {"machineType": "ct6e-standard-4t", "spot": True, "serviceAccount": "<computed>",
                       "labels": {"pathways-gke/tpu-group": "main"},
                       "taints": [{"effect": "NO_SCHEDULE", "key": "google.com/tpu", "value": "present"}]},
        "placementPolicy": {"tpuTopology": topology, "type": "COMPACT"},
    }


def container(name: str, image: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": image, **extra}


def jobset_inputs(name: str = "train", image: str = "us-docker.pkg.dev/acme/train:2026-11", slices: int = 1,
                  privileged: bool = False) -> dict[str, Any]:
    worker = container("pathways-worker", "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:jax-0.9.2")
    if privileged:
        worker["securityContext"] = {"privileged": True}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicatedJobs": [
            {"name": "pathways-head", "replicas": 1, "template": {"spec": {"template": {"spec": {
                "containers": [container("jax-tpu", image)]}}}}},
            {"name": "worker", "replicas": slices, "template": {"spec": {"template": {"spec": {
                "containers": [worker]}}}}},
        ]},
    }


def mini_plan(*, slices: int = 1, topology: str = "2x4", image: str = "us-docker.pkg.dev/acme/train:2026-11",
              stack: str = STACK) -> dict[str, Any]:
    root = resource([ROOT_T], "pw-dev", custom=False)
    cluster = resource([ROOT_T, CLUSTER_T], "pw-dev-cluster", parent=root["urn"],
                       inputs={"name": "pw-dev", "location": "us-east5", "deletionProtection": False,
                               "resourceLabels": {"env": "dev"}})
    cpu = resource([ROOT_T, POOL_T], "pw-dev-cpu", parent=root["urn"], depends_on=(cluster["urn"],),
                   inputs={"name": "cpu-np", "nodeConfig": {"machineType": "n2-standard-64"},
                           "nodeLocations": ["us-east5-b"], "initialNodeCount": 1, "nodeCount": 1},
                   ignoreChanges=["initialNodeCount", "nodeCount"], deleteBeforeReplace=True)
    group = resource([ROOT_T, GROUP_T], "pw-dev-main", parent=root["urn"], custom=False)
    pools = [resource([ROOT_T, GROUP_T, POOL_T], f"pw-dev-main-{i}", parent=group["urn"],
                      depends_on=(cluster["urn"],), inputs=pool_inputs(i, topology), deleteBeforeReplace=True)
             for i in range(slices)]
    provider = resource([ROOT_T, PROVIDER_T], "pw-dev-k8s", parent=root["urn"], depends_on=(cluster["urn"],),
                        inputs={"clusterIdentifier": "acme-ml-dev/us-east5/pw-dev", "kubeconfig": "<secret>"})
    install = resource([ROOT_T, INSTALL_T], "pw-dev-jobset", parent=root["urn"], depends_on=(cpu["urn"],),
                       inputs={"file": "jobset-v0.10.1.yaml"}, custom=False, provider=provider["urn"], protect=True)
    crd = resource([ROOT_T, INSTALL_T, CRD_T], "jobsets.jobset.x-k8s.io", parent=install["urn"],
                   inputs={"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                           "metadata": {"name": "jobsets.jobset.x-k8s.io"}},
                   provider=provider["urn"], protect=True)
    secret = resource([ROOT_T, SECRET_T], "pw-dev-hf-token", parent=root["urn"], provider=provider["urn"],
                      inputs={"apiVersion": "v1", "kind": "Secret",
                              "metadata": {"name": "hf-token", "namespace": "default"},
                              "stringData": {"HF_TOKEN": "<secret>"}})
    jobset = resource([ROOT_T, JOBSET_T], "train", parent=root["urn"],
                      depends_on=(install["urn"], *[p["urn"] for p in pools]),
                      inputs=jobset_inputs(image=image, slices=slices), provider=provider["urn"],
                      replaceOnChanges=["spec"], deleteBeforeReplace=True,
                      replaceWith=sorted(p["urn"] for p in pools))
    resources = [root, cluster, cpu, group, *pools, provider, install, crd, secret, jobset]
    plan = {"stack": STACK, "project": PROJECT, "resources": sorted(resources, key=lambda r: r["urn"])}
    return restack(plan, stack) if stack != STACK else plan


def restack(plan: dict[str, Any], stack: str) -> dict[str, Any]:
    out = json.loads(json.dumps(plan).replace(f"urn:pulumi:{STACK}::", f"urn:pulumi:{stack}::"))
    out["stack"] = stack
    return out


def named(plan: dict[str, Any], name: str) -> dict[str, Any]:
    matches = [r for r in plan["resources"] if r["name"] == name]
    assert len(matches) == 1, f"{len(matches)} resources named {name}"
    return matches[0]


def edited(plan: dict[str, Any], name: str, **changes: Any) -> dict[str, Any]:
    """A deep copy of `plan` with `inputs` / `options` keys of one resource replaced (dotted keys nest)."""
    out = copy.deepcopy(plan)
    r = named(out, name)
    for dotted, value in changes.items():
        section, *path = dotted.split("__")
        target = r[section]
        for key in path[:-1]:
            target = target.setdefault(key, {})
        target[path[-1]] = value
    return out
