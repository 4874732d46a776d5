"""The JobSet admission webhook's validation rules (and the core Pod rules the schema cannot express),
mirrored as a pure function so rendered JobSets are checked offline.

JobSet rules follow JobSet v0.12.0's webhook and CEL rules
(https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/webhooks/jobset_webhook.go,
https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/api/jobset/v1alpha2/jobset_types.go); pod rules follow
Kubernetes' `ValidatePodSpec`
(https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/apis/core/validation/validation.go) for the fields
we write (container restartPolicy, names, host ports, volume references, env sources).
"""

from __future__ import annotations

import re
from typing import Any

DNS_1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
DNS_1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
C_IDENTIFIER_ISH = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")  # Kubernetes env-var name rule
# jobset_webhook.go ruleNameFmt (the same from v0.6.0 to v0.12.0; no '-'), 1-128 characters
RULE_NAME = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
FIELD_PATH = re.compile(r"^metadata\.(labels|annotations)\['[^']+'\]$|^metadata\.(name|namespace|uid)$|"
                        r"^spec\.(nodeName|serviceAccountName)$|^status\.(hostIP|podIP|podIPs|hostIPs)$")
FAILURE_REASONS = {"BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded",
                   "PodFailurePolicy"}
RESTART_STRATEGIES = {"Recreate", "BlockingRecreate", "InPlaceRestart"}
RULE_ACTIONS = {"FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts", "RestartJob",
                "RestartJobAndIgnoreMaxRestarts"}
INT32 = 2**31 - 1


def jobset_rule_errors(js: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    err = errors.append
    name = js["metadata"]["name"]
    spec = js["spec"]
    rjobs = spec["replicatedJobs"]
    by_name = {r["name"]: r for r in rjobs}
    network = spec.get("network") or {}
    subdomain = network.get("subdomain") or name

    if not DNS_1035.match(name) or len(name) > 63:
        err(f"metadata.name {name!r} is not a DNS-1035 label")
    if not DNS_1035.match(subdomain) or len(subdomain) > 63:
        err(f"network.subdomain {subdomain!r} is not a DNS-1035 label")
    if len(by_name) != len(rjobs):
        err("replicatedJobs names are not unique")

    for i, rjob in enumerate(rjobs):
        jspec = rjob["template"]["spec"]
        replicas = rjob.get("replicas", 1)
        if not 0 <= replicas <= INT32:
            err(f"replicatedJobs[{i}].replicas out of int32 range")
        parallelism = jspec.get("parallelism", 1)
        completions = jspec.get("completions", parallelism)
        for field in ("parallelism", "completions", "backoffLimit"):
            if field in jspec and not 0 <= jspec[field] <= INT32:
                err(f"replicatedJobs[{i}].template.spec.{field} out of int32 range")
        if jspec.get("completionMode", "Indexed") == "Indexed" and completions is None:
            err(f"replicatedJobs[{i}]: Indexed Job needs completions")
        # generated names: Job <js>-<rj>-<jobIdx>, pod host <job>-<podIdx>, pod name + 5-char suffix
        job_name = f"{name}-{rjob['name']}-{max(replicas - 1, 0)}"
        pod_host = f"{job_name}-{max(completions - 1, 0)}"
        for what, value in (("Job name", job_name), ("pod name/hostname", pod_host)):
            if not DNS_1035.match(value) or len(value) > 63:
                err(f"replicatedJobs[{i}]: generated {what} {value!r} is not a DNS-1035 label <= 63")
        for k, dep in enumerate(rjob.get("dependsOn") or []):
            earlier = [r["name"] for r in rjobs[:i]]
            if i == 0 or dep["name"] not in earlier:
                err(f"replicatedJobs[{i}].dependsOn[{k}] must name an earlier replicatedJob")
        pod = jspec["template"]
        restart = pod["spec"].get("restartPolicy", "OnFailure")
        if restart not in ("OnFailure", "Never"):
            err(f"replicatedJobs[{i}]: a Job's pod restartPolicy must be OnFailure or Never, not {restart}")
        errors.extend(f"replicatedJobs[{i}].template.spec.template.spec: {e}" for e in pod_rule_errors(pod["spec"]))

    startup = (spec.get("startupPolicy") or {}).get("startupPolicyOrder", "AnyOrder")
    if startup == "InOrder" and any(r.get("dependsOn") for r in rjobs):
        err("startupPolicy InOrder and dependsOn are mutually exclusive")

    coordinator = spec.get("coordinator")
    if coordinator:
        target = by_name.get(coordinator["replicatedJob"])
        if target is None:
            err(f"coordinator.replicatedJob {coordinator['replicatedJob']!r} does not exist")
        else:
            jspec = target["template"]["spec"]
            job_index, pod_index = coordinator.get("jobIndex", 0), coordinator.get("podIndex", 0)
            if not 0 <= job_index < target.get("replicas", 1):
                err("coordinator.jobIndex out of range")
            if jspec.get("completionMode", "Indexed") != "Indexed" or "completions" not in jspec:
                err("coordinator Job must be Indexed with completions set")
            elif not 0 <= pod_index < jspec["completions"]:
                err("coordinator.podIndex out of range")
            endpoint = f"{name}-{coordinator['replicatedJob']}-{job_index}-{pod_index}.{subdomain}"
            if len(endpoint) > 63:
                err(f"coordinator endpoint {endpoint!r} is longer than 63 characters (label value limit)")

    success = spec.get("successPolicy")
    if success:
        if success.get("operator") not in ("All", "Any"):
            err("successPolicy.operator must be All or Any")
        for target_name in success.get("targetReplicatedJobs") or []:
            if target_name not in by_name:
                err(f"successPolicy target {target_name!r} does not exist")

    failure = spec.get("failurePolicy") or {}
    if failure:
        if failure.get("restartStrategy", "Recreate") not in RESTART_STRATEGIES:
            err(f"failurePolicy.restartStrategy {failure.get('restartStrategy')!r} is not allowed")
        if not 0 <= failure.get("maxRestarts", 0) <= INT32:
            err("failurePolicy.maxRestarts out of int32 range")
        for k, rule in enumerate(failure.get("rules") or []):
            if not RULE_NAME.match(rule.get("name", "x")) or len(rule.get("name", "x")) > 128:
                err(f"failurePolicy.rules[{k}].name is invalid")
            if rule.get("action") not in RULE_ACTIONS:
                err(f"failurePolicy.rules[{k}].action is invalid")
            for reason in rule.get("onJobFailureReasons") or []:
                if reason not in FAILURE_REASONS:
                    err(f"failurePolicy.rules[{k}]: unknown failure reason {reason!r}")
            for target_name in rule.get("targetReplicatedJobs") or []:
                if target_name not in by_name:
                    err(f"failurePolicy.rules[{k}] target {target_name!r} does not exist")
    if spec.get("ttlSecondsAfterFinished", 0) < 0:
        err("ttlSecondsAfterFinished must be >= 0")
    for rjob in rjobs:
        errors.extend(f"{rjob['name']}: {e}" for e in job_pod_failure_policy_errors(rjob["template"]["spec"]))
    return errors


def job_pod_failure_policy_errors(job: dict[str, Any]) -> list[str]:
    """Kubernetes' Job validation of podFailurePolicy (pkg/apis/batch/validation/validation.go,
    validateJobSpec / validatePodFailurePolicyRuleOnExitCodes): only with restartPolicy Never; an onExitCodes
    containerName names a container or init container; 1-255 values, unique and ordered; no 0 for In."""
    policy = job.get("podFailurePolicy")
    if policy is None:
        return []
    errors: list[str] = []
    pod = job["template"]["spec"]
    if pod.get("restartPolicy") != "Never":
        errors.append(f"spec.template.spec.restartPolicy: Invalid value: {pod.get('restartPolicy')!r}: only "
                      "\"Never\" is supported when podFailurePolicy is specified")
    names = {c["name"] for c in pod.get("containers", []) + pod.get("initContainers", [])}
    for k, rule in enumerate(policy.get("rules") or []):
        codes = rule.get("onExitCodes")
        if codes is None:
            continue
        if "containerName" in codes and codes["containerName"] not in names:
            errors.append(f"podFailurePolicy.rules[{k}].onExitCodes.containerName names no container")
        values = codes.get("values") or []
        if not 1 <= len(values) <= 255:
            errors.append(f"podFailurePolicy.rules[{k}].onExitCodes.values: 1-255 values")
        if values != sorted(set(values)):
            errors.append(f"podFailurePolicy.rules[{k}].onExitCodes.values must be ordered and unique")
        if codes.get("operator") == "In" and 0 in values:
            errors.append(f"podFailurePolicy.rules[{k}].onExitCodes.values must not be 0 for the In operator")
    return errors


def pod_rule_errors(spec: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    err = errors.append
    init = spec.get("initContainers") or []
    main = spec.get("containers") or []
    if not main:
        err("a pod needs at least one container")
    volumes = {v["name"] for v in spec.get("volumes") or []}
    if len(volumes) != len(spec.get("volumes") or []):
        err("volume names are not unique")
    names = [c["name"] for c in init + main]
    if len(set(names)) != len(names):
        err(f"container names are not unique: {names}")
    host_ports: set[tuple[int, str]] = set()
    host_network = spec.get("hostNetwork", False)
    if host_network and spec.get("dnsPolicy") not in ("ClusterFirstWithHostNet", "Default", "None"):
        err("hostNetwork pods should use dnsPolicy ClusterFirstWithHostNet to resolve cluster names")
    for kind, containers in (("initContainers", init), ("containers", main)):
        for c in containers:
            where = f"{kind}[{c['name']}]"
            if not DNS_1123_LABEL.match(c["name"]) or len(c["name"]) > 63:
                err(f"{where}: name is not a DNS-1123 label")
            if "restartPolicy" in c and (kind != "initContainers" or c["restartPolicy"] != "Always"):
                err(f"{where}: restartPolicy is only allowed on init containers, as Always (native sidecar)")
            if not c.get("image"):
                err(f"{where}: image is required")
            seen_ports: set[tuple[int, str]] = set()
            for port in c.get("ports") or []:
                key = (port["containerPort"], port.get("protocol", "TCP"))
                if key in seen_ports:
                    err(f"{where}: duplicate port {key}")
                seen_ports.add(key)
                host_port = port.get("hostPort", port["containerPort"] if host_network else None)
                if host_network and host_port != port["containerPort"]:
                    err(f"{where}: with hostNetwork, hostPort must equal containerPort")
                if host_port is not None:
                    hkey = (host_port, port.get("protocol", "TCP"))
                    if hkey in host_ports:
                        err(f"{where}: host port {hkey} is used twice in the pod")
                    host_ports.add(hkey)
            env_names = [e["name"] for e in c.get("env") or []]
            if len(set(env_names)) != len(env_names):
                err(f"{where}: duplicate env names {env_names}")
            for e in c.get("env") or []:
                if not C_IDENTIFIER_ISH.match(e["name"]):
                    err(f"{where}: env name {e['name']!r} is invalid")
                if "value" in e and "valueFrom" in e:
                    err(f"{where}: env {e['name']} has both value and valueFrom")
                source = e.get("valueFrom")
                if source is not None:
                    if len(source) != 1:
                        err(f"{where}: env {e['name']} valueFrom needs exactly one source")
                    field = source.get("fieldRef")
                    if field and not FIELD_PATH.match(field["fieldPath"]):
                        err(f"{where}: env {e['name']} fieldPath {field['fieldPath']!r} is not supported")
            for mount in c.get("volumeMounts") or []:
                if mount["name"] not in volumes:
                    err(f"{where}: volumeMount {mount['name']!r} names no volume")
            mount_paths = [m["mountPath"] for m in c.get("volumeMounts") or []]
            if len(set(mount_paths)) != len(mount_paths):
                err(f"{where}: duplicate mountPath")
            res = c.get("resources") or {}
            for key, request in (res.get("requests") or {}).items():
                limit = (res.get("limits") or {}).get(key)
                if limit is not None and _quantity(request) > _quantity(limit):
                    err(f"{where}: requests.{key} > limits.{key}")
            if c.get("imagePullPolicy", "IfNotPresent") not in ("Always", "IfNotPresent", "Never"):
                err(f"{where}: imagePullPolicy is invalid")
    account = spec.get("serviceAccountName")
    if account is not None and (not DNS_1123_SUBDOMAIN.match(account) or len(account) > 253):
        err(f"serviceAccountName {account!r} is not a DNS-1123 subdomain")
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is not None and grace < 0:
        err("terminationGracePeriodSeconds must be >= 0")
    return errors


def _quantity(text: str) -> float:
    from pathways_gke.config.pathways import parse_quantity  # noqa: PLC0415

    return float(parse_quantity(text))
