"""What each pod of a rendered JobSet would run: its environment and its command, as Kubernetes makes them.

Used to run a rendered JobSet's processes locally (tests/test_jax_real.py). It reproduces, for every pod:
- the labels and annotations the JobSet controller stamps (jobset-name, replicatedjob-name,
  replicatedjob-replicas, job-index, job-global-index, coordinator:
  https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/api/jobset/v1alpha2/jobset_types.go) and the Job
  controller's completion index (annotation `batch.kubernetes.io/job-completion-index`, plus the
  `JOB_COMPLETION_INDEX` variable it injects when the container does not define it);
- the container env resolved in order: literal values with `$(VAR)` expanded from the variables defined
  earlier in the list, `fieldRef`s read from those labels/annotations, `secretKeyRef`s from given values;
- `command` and `args` with `$(VAR)` expanded from the final environment (Kubernetes' expansion rules:
  `$$` is an escaped `$`, an undefined `$(NAME)` is left as written).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

JOBSET_KEYS = "jobset.sigs.k8s.io/"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
_FIELD_PATH = re.compile(r"^metadata\.(labels|annotations)\['([^']+)'\]$")


def expand(text: str, env: Mapping[str, str]) -> str:
    """Kubernetes `$(VAR)` expansion (k8s.io/kubernetes third_party/forked/golang/expansion)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char != "$" or i + 1 >= len(text):
            out.append(char)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "$":  # escaped
            out.append("$")
            i += 2
        elif nxt == "(":
            end = text.find(")", i + 2)
            if end == -1:  # unterminated: left as written
                out.append(text[i:])
                break
            name = text[i + 2:end]
            out.append(env[name] if name in env else text[i:end + 1])
            i = end + 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


@dataclass
class Pod:
    replicated_job: str
    job_index: int
    completion_index: int
    labels: dict[str, str]
    annotations: dict[str, str]
    containers: list[dict[str, Any]] = field(default_factory=list)

    @property
    def hostname(self) -> str:
        jobset = self.labels[JOBSET_KEYS + "jobset-name"]
        return f"{jobset}-{self.replicated_job}-{self.job_index}-{self.completion_index}"


def pods(jobset: Mapping[str, Any], host_aliases: Mapping[str, str] | None = None) -> Iterator[Pod]:
    """Every pod the JobSet would create, with the metadata the controllers stamp on it.

    `host_aliases` replaces cluster DNS names in the stamped values (e.g. the coordinator's
    `<js>-workers-0-0.<js>` -> 127.0.0.1) so the processes can run on one machine.
    """
    name = jobset["metadata"]["name"]
    spec = jobset["spec"]
    subdomain = (spec.get("network") or {}).get("subdomain") or name
    coordinator = None
    if spec.get("coordinator"):
        c = spec["coordinator"]
        coordinator = f"{name}-{c['replicatedJob']}-{c.get('jobIndex', 0)}-{c.get('podIndex', 0)}.{subdomain}"
        coordinator = (host_aliases or {}).get(coordinator, coordinator)
    global_index = 0
    for rjob in spec["replicatedJobs"]:
        job_spec = rjob["template"]["spec"]
        assert job_spec.get("completionMode", "Indexed") == "Indexed"
        for job_index in range(rjob.get("replicas", 1)):
            for completion in range(job_spec["completions"]):
                stamped = {
                    JOBSET_KEYS + "jobset-name": name,
                    JOBSET_KEYS + "replicatedjob-name": rjob["name"],
                    JOBSET_KEYS + "replicatedjob-replicas": str(rjob.get("replicas", 1)),
                    JOBSET_KEYS + "job-index": str(job_index),
                    JOBSET_KEYS + "job-global-index": str(global_index),
                }
                if coordinator is not None:
                    stamped[JOBSET_KEYS + "coordinator"] = coordinator
                template = job_spec["template"]
                labels = {**(template.get("metadata") or {}).get("labels", {}), **stamped}
                annotations = {**(template.get("metadata") or {}).get("annotations", {}), **stamped,
                               COMPLETION_INDEX: str(completion)}
                yield Pod(rjob["name"], job_index, completion, labels, annotations,
                          list(template["spec"]["containers"]))
            global_index += 1


def container_env(pod: Pod, container: Mapping[str, Any], secrets: Mapping[str, Mapping[str, str]] | None = None,
                  ) -> dict[str, str]:
    """The container's environment as the kubelet builds it (order matters for `$(VAR)` in values)."""
    env: dict[str, str] = {}
    for item in container.get("env", []):
        name = item["name"]
        if "value" in item:
            env[name] = expand(item["value"], env)
        elif "fieldRef" in item.get("valueFrom", {}):
            path = item["valueFrom"]["fieldRef"]["fieldPath"]
            match = _FIELD_PATH.match(path)
            if not match:
                raise ValueError(f"{name}: fieldRef {path!r} is not simulated")
            source = pod.labels if match[1] == "labels" else pod.annotations
            if match[2] not in source:
                raise KeyError(f"{name}: pod has no {match[1][:-1]} {match[2]!r} (fieldRef {path})")
            env[name] = source[match[2]]
        elif "secretKeyRef" in item.get("valueFrom", {}):
            ref = item["valueFrom"]["secretKeyRef"]
            env[name] = (secrets or {})[ref["name"]][ref["key"]]
        else:
            raise ValueError(f"{name}: env source {item!r} is not simulated")
    env.setdefault("JOB_COMPLETION_INDEX", str(pod.completion_index))  # Job controller injects it
    return env


def container_argv(container: Mapping[str, Any], env: Mapping[str, str]) -> list[str]:
    return [expand(part, env) for part in [*container.get("command", []), *container.get("args", [])]]
