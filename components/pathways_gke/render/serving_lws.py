"""Pathways serving on a LeaderWorkerSet (LWS) as plain data — no Pulumi import.

`serving_objects(workload, placement, ...)` returns every Kubernetes object of one `mode: serving` or
`mode: service` workload:

- serving: one `leaderworkerset.x-k8s.io/v1` LeaderWorkerSet of `replicas` groups; a group is the Pathways
  head (leader pod: the user's server, the IFRT proxy and the resource manager) plus the workers of
  `slicesPerReplica` slices, so `size = slices x VMs per slice + 1`; and a Service selecting the leaders.
- service: the same LWS shape with a resource-manager-only leader spanning the pool's slices, whose workers
  restart in place (`restartPolicy: None`), and per client an IFRT-proxy Deployment + Service.

Layout (kubernetes-sigs/lws `leaderworkerset_types.go`, pod webhook): with the leader on a TPU VM (Google's
JetStream + Pathways layout) a one-slice group is pinned to one node pool with `exclusive-topology`; a multi-slice
group gets `subGroupPolicy` (one subgroup per slice) and `subgroup-exclusive-topology`. With the leader on the CPU
pool the subgroups are `LeaderExcluded` (LWS >= v0.6.0), so the exclusive placement never pins the workers to the
CPU pool. Every server finds the resource manager at `$(LWS_LEADER_ADDRESS)`, which LWS injects into every
container. Deterministic: same inputs, same dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .. import naming
from ..apply_rules import kueue_frozen_shape_digest
from ..config.serving_checks import Layout, layout_of
from ..config.placement import Placement
from ..config.workloads import PathwaysWorkloadConfig
from ..pathways_facts import PROXY_CONTAINER, RM_CONTAINER, WORKER_CONTAINER, pipe_timeout_env
from .head import guard_head
from .pod import (PROXY_PORT, RM_PORT, RM_PORTS, WORKER_PORT, WORKER_PORTS, client_container, component_images,
                  container_ports, custom_env, fuse_mounts, fuse_volumes, image_pull_policy, pod_options,
                  server_resources, sidecar_container, tpu_node_selector, tpu_pod_tolerations, value_env)

LEADER_ADDRESS = "$(LWS_LEADER_ADDRESS)"
# The IFRT proxy here listens on the pod network. Its gRPC default is ALTS, whose handshake needs the GCE metadata
# server's ALTS service — which a pod under Workload Identity (the GKE metadata server), a laptop through
# port-forward or a client on another VM never reaches: every connection fails with "Invalid credentials". XLA's
# OSS builds switch both ends to insecure gRPC credentials when this variable is exactly "true"
# (openxla/xla xla/python/ifrt_proxy/common/grpc_credentials_possibly_insecure_wrapper.cc); AXLearn's LWS layout
# and pathways-utils' Shared Pathways Service set it on the proxy (PATHWAYS_SERVING.md §2.9, §5). The other
# documented way, Workload Identity off on the TPU node pools (GKE's JetStream tutorial), would hand every pod
# the node's service account, so it is not taken. The JobSet layout (hostNetwork) keeps ALTS.
INSECURE_CREDENTIALS_ENV = naming.IFRT_PROXY_INSECURE_ENV
DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"
SKIP_AWAIT_ANNOTATION = "pulumi.com/skipAwait"
READINESS_FAILURES = 3


@dataclass(frozen=True)
class ServingObjects:
    """The objects of one serving/service workload (each is registered as its own resource)."""

    lws: dict[str, Any]
    service: Optional[dict[str, Any]] = None  # mode serving: the Service in front of the leaders
    clients: dict[str, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)  # client -> (Deployment, Service)


def _pod_common(workload: PathwaysWorkloadConfig) -> dict[str, Any]:
    return pod_options(workload)  # no host network: LWS pods use the pod network (and Workload Identity)


# --- containers ----------------------------------------------------------------------------------------------


def _server_resources(container: str, placement: Optional[Placement], leader: str, *, proxy: bool = True) -> dict[str, Any]:
    """A Pathways server's resources in an LWS pod: sized for the TPU VM of a `leader: tpu` leader."""
    tpu = placement.shape.machine_type if leader == "tpu" and placement is not None and placement.shape is not None else None
    return server_resources(container, tpu, proxy=proxy)


def rm_container(workload: PathwaysWorkloadConfig, placement: Placement, slices: int, leader: str = "cpu") -> dict[str, Any]:
    pw = workload.pathways
    assert placement.shape is not None
    return {
        "name": RM_CONTAINER,
        "image": component_images(workload)["server"],
        "imagePullPolicy": image_pull_policy(workload),
        "args": [
            f"--server_port={RM_PORT}",
            f"--gcs_scratch_location={pw.gcs_scratch}",
            "--node_type=resource_manager",
            f"--instance_count={slices}",
            f"--instance_type={placement.shape.instance_type}",
            *(["--enable_metrics_collection=true"] if pw.metrics else []),
            *pw.flags.server,
        ],
        "env": [value_env("HOST_ADDRESS", LEADER_ADDRESS), value_env("TPU_SKIP_MDS_QUERY", "true"),
                *pipe_timeout_env(pw.pipe_unreachable_timeout), *custom_env(pw.env.server)],
        "ports": container_ports(*RM_PORTS),
        "resources": _server_resources(RM_CONTAINER, placement, leader, proxy=workload.mode == "serving"),
    }


def proxy_container(workload: PathwaysWorkloadConfig, rm_address: str, virtual_slices: Optional[str] = None, *,
                    placement: Optional[Placement] = None, leader: str = "cpu") -> dict[str, Any]:
    pw = workload.pathways
    return {
        "name": PROXY_CONTAINER,
        "image": component_images(workload)["proxy"],
        "imagePullPolicy": image_pull_policy(workload),
        "args": [
            f"--server_port={PROXY_PORT}",
            f"--resource_manager_address={rm_address}:{RM_PORT}",
            f"--gcs_scratch_location={pw.gcs_scratch}",
            *([f"--virtual_slices={virtual_slices}"] if virtual_slices else []),
            *(["--enable_metrics_collection=true"] if pw.metrics else []),
            *pw.flags.proxy,
        ],
        "env": [value_env(INSECURE_CREDENTIALS_ENV, "true"), *pipe_timeout_env(pw.pipe_unreachable_timeout),
                *custom_env(pw.env.proxy)],
        "ports": container_ports(PROXY_PORT),
        "resources": _server_resources(PROXY_CONTAINER, placement, leader),
    }


def _probe(workload: PathwaysWorkloadConfig) -> dict[str, Any]:
    serving = workload.serving
    assert serving is not None
    if serving.probes.path is not None:
        return {"httpGet": {"path": serving.probes.path, "port": serving.probe_port}}
    return {"tcpSocket": {"port": serving.probe_port}}


def probes(workload: PathwaysWorkloadConfig) -> dict[str, Any]:
    """Startup (sized for checkpoint loading), readiness (gates the Service) and liveness probes."""
    serving = workload.serving
    assert serving is not None
    p = serving.probes
    if not p.enabled:
        return {}
    period = p.period_seconds
    return {
        "startupProbe": {**_probe(workload), "periodSeconds": period,
                         "failureThreshold": -(-p.startup_seconds // period)},
        "readinessProbe": {**_probe(workload), "periodSeconds": period, "failureThreshold": READINESS_FAILURES},
        # liveness after startup: a server that stops answering for this long is restarted (its group recreated)
        "livenessProbe": {**_probe(workload), "periodSeconds": period, "failureThreshold": p.liveness_failures,
                          **({"timeoutSeconds": p.liveness_timeout_seconds} if p.liveness_timeout_seconds != 1
                             else {})},
    }


def port_owner(workload: PathwaysWorkloadConfig, port: int) -> str:
    """The leader container that listens on `port`: the sidecar that lists it, else the user's server."""
    return next((s.name for s in workload.sidecars if port in s.ports), workload.container_name)


def server_container(workload: PathwaysWorkloadConfig, *, secret_name: Optional[str]) -> dict[str, Any]:
    """The user's server (JetStream, vLLM-TPU, SGLang-JAX, ...): a JAX client of the proxy in its own pod. It
    declares the serving ports no sidecar lists, and carries the probes when it owns the probe port."""
    serving = workload.serving
    assert serving is not None
    backend = [
        value_env("JAX_PLATFORMS", "proxy"),
        value_env("XCLOUD_ENVIRONMENT", "GCP"),
        value_env("JAX_BACKEND_TARGET", f"grpc://localhost:{PROXY_PORT}"),
        value_env(INSECURE_CREDENTIALS_ENV, "true"),
        *pipe_timeout_env(workload.pathways.pipe_unreachable_timeout),
    ]
    extra: dict[str, Any] = {}
    ports = [{"name": name, "containerPort": port, "protocol": "TCP"} for name, port in serving.port_list()
             if port_owner(workload, port) == workload.container_name]
    if ports:
        extra["ports"] = ports
    if port_owner(workload, serving.probe_port) == workload.container_name:
        extra.update(probes(workload))
    return client_container(workload, backend, secret_name=secret_name, mounts=fuse_mounts(workload, workers=False),
                            extra=extra)


def leader_sidecars(workload: PathwaysWorkloadConfig) -> list[dict[str, Any]]:
    """The workload's sidecars in the leader (regular containers, Google's layout), with the names of the serving
    ports they own and, on the one owning the probe port, the probes."""
    names = {port: name for name, port in workload.serving.port_list()} if workload.serving else {}
    out = []
    for sidecar in workload.sidecars:
        owns_probe = workload.serving is not None and port_owner(workload, workload.serving.probe_port) == sidecar.name
        out.append(sidecar_container(workload, sidecar, native=False, port_names=names,
                                     extra=probes(workload) if owns_probe else None))
    return out


def worker_container(workload: PathwaysWorkloadConfig, placement: Placement) -> dict[str, Any]:
    pw = workload.pathways
    assert placement.shape is not None
    container: dict[str, Any] = {
        "name": WORKER_CONTAINER,
        "image": component_images(workload)["worker"],
        "imagePullPolicy": image_pull_policy(workload),
        "args": [
            f"--server_port={WORKER_PORT}",
            f"--resource_manager_address={LEADER_ADDRESS}:{RM_PORT}",
            f"--gcs_scratch_location={pw.gcs_scratch}",
            *(["--enable_metrics_collection=true"] if pw.metrics else []),
            *pw.flags.worker,
        ],
        "env": [value_env("TPU_MIN_LOG_LEVEL", "0"), value_env("TF_CPP_MIN_LOG_LEVEL", "0"), value_env("XCLOUD_ENVIRONMENT", "GCP"),
                *pipe_timeout_env(pw.pipe_unreachable_timeout), *custom_env(pw.env.worker)],
        "ports": container_ports(*WORKER_PORTS),
        "resources": {"limits": {naming.TPU_RESOURCE: str(placement.shape.chips_per_vm)}},
    }
    mounts = fuse_mounts(workload, workers=True)
    if mounts:
        container["volumeMounts"] = mounts
    return container


# --- pods ----------------------------------------------------------------------------------------------------


def leader_template(workload: PathwaysWorkloadConfig, placement: Placement, layout: Layout, *,
                    secret_name: Optional[str]) -> dict[str, Any]:
    annotations: dict[str, str] = {}
    spec = _pod_common(workload)
    if layout.leader == "tpu":
        spec["nodeSelector"] = tpu_node_selector(placement)
        spec["tolerations"] = tpu_pod_tolerations(placement)
    else:
        spec["nodeSelector"] = {naming.NODE_POOL_LABEL: placement.cpu_pool}
    rm = rm_container(workload, placement, layout.slices, layout.leader)
    if workload.mode == "serving":
        server = server_container(workload, secret_name=secret_name)
        spec["containers"] = [server, *leader_sidecars(workload),
                              proxy_container(workload, LEADER_ADDRESS, placement=placement, leader=layout.leader), rm]
        annotations[DEFAULT_CONTAINER_ANNOTATION] = server["name"]
        volumes = fuse_volumes(workload, workers=False, host_network=False)
        if volumes:
            spec["volumes"] = volumes
            annotations[naming.GCS_FUSE_ANNOTATION] = "true"
    else:
        spec["containers"] = [rm, *leader_sidecars(workload)]
    # the leader is a Pathways head: alone on its node and never evicted by the autoscaler, like a JobSet head
    metadata, spec = guard_head({"labels": {naming.WORKLOAD_LABEL: workload.name},
                                 "annotations": dict(sorted(annotations.items()))}, spec)
    return {"metadata": metadata, "spec": spec}


def worker_template(workload: PathwaysWorkloadConfig, placement: Placement) -> dict[str, Any]:
    spec = _pod_common(workload)
    spec["nodeSelector"] = tpu_node_selector(placement)
    spec["tolerations"] = tpu_pod_tolerations(placement)
    spec["containers"] = [worker_container(workload, placement)]
    metadata: dict[str, Any] = {"labels": {naming.WORKLOAD_LABEL: workload.name}}
    volumes = fuse_volumes(workload, workers=True, host_network=False)
    if volumes:
        spec["volumes"] = volumes
        metadata["annotations"] = {naming.GCS_FUSE_ANNOTATION: "true"}
    return {"metadata": metadata, "spec": spec}


# --- the LeaderWorkerSet -------------------------------------------------------------------------------------


def uses_subgroups(layout: Layout) -> bool:
    """One subgroup per slice: always for a CPU leader (LeaderExcluded), and for multi-slice groups."""
    return layout.leader == "cpu" or layout.slices > 1


def build_lws(workload: PathwaysWorkloadConfig, placement: Placement, *, secret_name: Optional[str] = None) -> dict[str, Any]:
    """The LeaderWorkerSet of a validated serving/service workload on `placement` (see module doc)."""
    if not workload.on_lws:
        raise ValueError(f"workload {workload.name!r} is in mode {workload.mode!r}, not serving or service")
    layout = layout_of(workload, placement)
    labels = {naming.WORKLOAD_LABEL: workload.name}
    if placement.queue_name:
        labels[naming.QUEUE_NAME_LABEL] = placement.queue_name
    if uses_subgroups(layout):
        annotations = {naming.LWS_SUBGROUP_EXCLUSIVE_TOPOLOGY: naming.NODE_POOL_LABEL}
    else:  # the leader's node pool (a TPU slice) takes the whole group
        annotations = {naming.LWS_EXCLUSIVE_TOPOLOGY: naming.NODE_POOL_LABEL}
    template: dict[str, Any] = {
        "size": layout.size,
        # serving: a failed pod recreates its group (a Pathways cluster is all or nothing); service: the
        # long-lived resource manager stays up and a failed worker restarts in place and rejoins it.
        "restartPolicy": "RecreateGroupOnPodRestart" if workload.mode == "serving" else "None",
        "leaderTemplate": leader_template(workload, placement, layout, secret_name=secret_name),
        "workerTemplate": worker_template(workload, placement),
    }
    if uses_subgroups(layout):
        policy: dict[str, Any] = {"subGroupSize": layout.vms}
        if layout.leader == "cpu":
            policy["subGroupPolicyType"] = "LeaderExcluded"
        template["subGroupPolicy"] = policy
    lws = {
        "apiVersion": naming.LWS_API_VERSION,
        "kind": "LeaderWorkerSet",
        "metadata": {"name": workload.name, "namespace": placement.namespace, "labels": dict(sorted(labels.items())),
                     "annotations": annotations},
        "spec": {
            "replicas": layout.replicas,
            "leaderWorkerTemplate": template,
            # workers start with the leader pod: its readiness waits for the model loaded on them
            "startupPolicy": "LeaderCreated",
            # the webhook's defaults, written out so a live object never differs from the plan
            "rolloutStrategy": {"type": "RollingUpdate",
                                "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": layout.surge}},
            "networkConfig": {"subdomainPolicy": "Shared"},
        },
    }
    if placement.queue_name:  # what Kueue freezes, as one digest in replaceOnChanges (apply_rules)
        annotations[naming.KUEUE_FROZEN_SHAPE_ANNOTATION] = kueue_frozen_shape_digest(lws)
    return lws


# --- Services and client proxies -----------------------------------------------------------------------------


def leader_selector(lws: str) -> dict[str, str]:
    """Exactly the leader pods of an LWS (LWS labels every group pod; worker-index 0 is the leader)."""
    return {naming.LWS_NAME_KEY: lws, naming.LWS_WORKER_INDEX_KEY: "0"}


def build_serving_service(workload: PathwaysWorkloadConfig, placement: Placement) -> dict[str, Any]:
    serving = workload.serving
    assert serving is not None
    metadata: dict[str, Any] = {"name": naming.serving_service_name(workload.name), "namespace": placement.namespace,
                                "labels": {naming.WORKLOAD_LABEL: workload.name}}
    # pulumi-kubernetes awaits a Service until it has ready endpoints; the leaders are ready only once the model
    # is loaded (up to serving.probes.startupSeconds), so `pulumi up` must not wait for them here.
    annotations = {SKIP_AWAIT_ANNOTATION: "true"}
    spec: dict[str, Any] = {"type": "ClusterIP"}
    if serving.load_balancer == "internal":
        # GKE internal passthrough Network Load Balancer (https://cloud.google.com/kubernetes-engine/docs/
        # concepts/service-load-balancer-parameters): a VPC-internal address, never an external one.
        annotations[naming.INTERNAL_LB_ANNOTATION] = "Internal"
        spec["type"] = "LoadBalancer"
    metadata["annotations"] = dict(sorted(annotations.items()))
    spec["selector"] = leader_selector(workload.name)
    spec["ports"] = [{"name": name, "port": port, "targetPort": port, "protocol": "TCP"}
                     for name, port in serving.port_list()]
    return {"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": spec}


def client_labels(workload: PathwaysWorkloadConfig, client: str) -> dict[str, str]:
    return {naming.CLIENT_LABEL: client, naming.WORKLOAD_LABEL: workload.name}


def virtual_slices(workload: PathwaysWorkloadConfig, placement: Placement) -> str:
    """The proxy's `--virtual_slices`: the backend's instance type once per slice the client asks for."""
    assert workload.service is not None and placement.shape is not None
    return ",".join([placement.shape.instance_type] * workload.service.client_slices)


def build_client_proxy(workload: PathwaysWorkloadConfig, placement: Placement, client: str) -> dict[str, Any]:
    """One client's IFRT proxy: a Deployment on the CPU pool talking to the backend's resource manager."""
    labels = client_labels(workload, client)
    container = proxy_container(workload, naming.lws_leader_host(workload.name), virtual_slices(workload, placement))
    container["readinessProbe"] = {"tcpSocket": {"port": PROXY_PORT}, "periodSeconds": 10}
    spec = _pod_common(workload)
    spec["nodeSelector"] = {naming.NODE_POOL_LABEL: placement.cpu_pool}
    spec["containers"] = [container]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": naming.client_proxy_name(workload.name, client), "namespace": placement.namespace,
                     "labels": dict(labels)},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": dict(labels)},
            # never two proxies for one client (the client's session lives in its proxy)
            "strategy": {"type": "Recreate"},
            "template": {"metadata": {"labels": dict(labels)}, "spec": spec},
        },
    }


def build_client_service(workload: PathwaysWorkloadConfig, placement: Placement, client: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": naming.client_proxy_name(workload.name, client), "namespace": placement.namespace,
                     "labels": client_labels(workload, client)},
        "spec": {"type": "ClusterIP", "selector": client_labels(workload, client),
                 "ports": [{"name": "grpc", "port": PROXY_PORT, "targetPort": PROXY_PORT, "protocol": "TCP"}]},
    }


def serving_objects(workload: PathwaysWorkloadConfig, placement: Placement, *,
                    secret_name: Optional[str] = None) -> ServingObjects:
    lws = build_lws(workload, placement, secret_name=secret_name)
    if workload.mode == "serving":
        return ServingObjects(lws=lws, service=build_serving_service(workload, placement))
    assert workload.service is not None
    return ServingObjects(lws=lws, clients={
        c: (build_client_proxy(workload, placement, c), build_client_service(workload, placement, c))
        for c in workload.service.clients})


def access_facts(workload: PathwaysWorkloadConfig, namespace: str) -> dict[str, Any]:
    """Where clients connect (docs/serving.md). A serving group's proxy belongs to its model server (a second JAX
    client would compete with it for the slices), so mode serving gives no JAX backend placement; shared slices
    are mode service, where each client has its own proxy."""
    domain = f"{namespace}.svc.cluster.local"
    facts: dict[str, Any] = {}
    if workload.serving is not None:
        service = naming.serving_service_name(workload.name)
        port = workload.serving.port_list()[0][1]
        facts.update(service_name=service, endpoint=f"http://{service}.{domain}:{port}",
                     port_forward_command=f"kubectl port-forward -n {namespace} svc/{service} {port}:{port}")
    if workload.service is not None:
        facts["client_targets"] = {
            c: f"grpc://{naming.client_proxy_name(workload.name, c)}.{domain}:{PROXY_PORT}"
            for c in workload.service.clients}
        facts["client_port_forward_commands"] = {
            c: (f"kubectl port-forward -n {namespace} svc/{naming.client_proxy_name(workload.name, c)} "
                f"{PROXY_PORT}:{PROXY_PORT}  # then: JAX_PLATFORMS=proxy "
                f"JAX_BACKEND_TARGET=grpc://127.0.0.1:{PROXY_PORT} {INSECURE_CREDENTIALS_ENV}=true")
            for c in workload.service.clients}
    return facts
