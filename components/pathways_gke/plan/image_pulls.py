"""Time to the first training step: image pulls and start-up after `pulumi up` has created a JobSet.

Pure: works on plan.json resources, no Pulumi import. `pulumi up` is done when a JobSet is admitted; its pods
then land on the pools the JobSet depends on, each node pulls the images of the pod it runs (kubelet pulls
one image at a time by default, so a pod's images add up; nodes pull in parallel), and the program starts.
How long a pull takes depends on the pool that runs the pod:

- preloaded: the pool has a container-image-cache secondary boot disk (`secondaryBootDisks`), so the images
  are on the node already. The plan cannot see what the disk image holds; it assumes the images of the
  workloads on that pool, which is what docs/at-scale.md says to bake in.
- streamed: the pool has image streaming (`gcfsConfig.enabled`) and the image is in Artifact Registry; the
  container starts once the data it reads first has arrived (a fixed time per image).
- pulled: otherwise, the image's size over the node's pull rate.

Every number is an estimate in IMAGE_ROWS, overridable with the same --durations file as the create times.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional

from ..property_paths import value_at

POOL_LABEL = "cloud.google.com/gke-nodepool"
STREAMABLE = ("-docker.pkg.dev/",)  # GKE image streaming serves Artifact Registry images only
PATHWAYS_REPO = "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/"

SIZE_KEY = "image-size"           # image-size#<repository> (GB), image-size#default
RATE_KEY = "pull-rate"            # pull-rate#cpu, pull-rate#tpu (MB/s)
STREAMED_KEY = "image-pull#streamed"
PRELOADED_KEY = "image-pull#preloaded"
START_KEY = "first-step"
DEFAULT_SIZE_KEY = f"{SIZE_KEY}#default"


@dataclass(frozen=True)
class ImageRow:
    value: float
    unit: str
    why: str


IMAGE_ROWS: Mapping[str, ImageRow] = {
    f"{SIZE_KEY}#{PATHWAYS_REPO}server": ImageRow(
        4.0, "GB", "Pathways server image (resource manager and every worker): compressed size, estimate; "
                   "measure yours with `gcloud artifacts docker images list REPO --include-tags` (SIZE)"),
    f"{SIZE_KEY}#{PATHWAYS_REPO}proxy_server": ImageRow(3.0, "GB", "Pathways IFRT proxy image: estimate, as above"),
    DEFAULT_SIZE_KEY: ImageRow(6.0, "GB", "any other image (the user's JAX image: Python, JAX, libtpu and the "
                                          "model code): estimate; override per repository with "
                                          "`image-size#<registry>/<path>`"),
    f"{RATE_KEY}#cpu": ImageRow(80, "MB/s", "pull and unpack on a CPU node: layer decompression and extraction, "
                                            "not the network, bound a multi-GB pull"),
    f"{RATE_KEY}#tpu": ImageRow(80, "MB/s", "pull and unpack on a TPU VM: the same bound"),
    STREAMED_KEY: ImageRow(15, "s", "image streaming: the container starts once the files it reads first have "
                                    "arrived (GKE: seconds instead of minutes); per image"),
    PRELOADED_KEY: ImageRow(2, "s", "image already on the node's secondary boot disk (image cache); per image"),
    START_KEY: ImageRow(180, "s", "after the images: Pathways workers register with the resource manager, the "
                                  "client connects, JAX traces and XLA compiles the first step"),
}


def is_image_key(key: str) -> bool:
    """An IMAGE_ROWS key, or `image-size#<repository>` for a repository the table lacks."""
    return key in IMAGE_ROWS or (key.startswith(f"{SIZE_KEY}#") and len(key) > len(SIZE_KEY) + 1)


def image_table(overrides: Optional[Mapping[str, float]] = None) -> dict[str, float]:
    table = {key: row.value for key, row in IMAGE_ROWS.items()}
    table.update({k: v for k, v in (overrides or {}).items() if is_image_key(k)})
    return table


def image_size_gb(image: str, table: Mapping[str, float]) -> float:
    """Size of `image` by its repository (the reference without tag or digest); longest matching prefix wins."""
    repo = image.split("@", 1)[0]
    last = repo.rsplit("/", 1)
    if ":" in last[-1]:
        repo = repo[: repo.rfind(":")]
    matches = [k for k in table if k.startswith(f"{SIZE_KEY}#") and k != DEFAULT_SIZE_KEY
               and repo.startswith(k.split("#", 1)[1])]
    return table[max(matches, key=len)] if matches else table[DEFAULT_SIZE_KEY]


# --- which pool a pod lands on, and how that pool gets images ------------------------------------


def pod_spec(replicated_job: Mapping[str, Any]) -> Mapping[str, Any]:
    return value_at(replicated_job, "template.spec.template.spec") or {}


def pod_images(spec: Mapping[str, Any]) -> list[str]:
    images = []
    for container in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]:
        image = container.get("image") if isinstance(container, Mapping) else None
        if isinstance(image, str) and image not in images:
            images.append(image)
    return images


def wants_tpu(spec: Mapping[str, Any]) -> bool:
    selector = spec.get("nodeSelector") or {}
    if any(k.startswith("cloud.google.com/gke-tpu") for k in selector):
        return True
    return any("google.com/tpu" in (value_at(c, "resources.limits") or {})
               for c in spec.get("containers") or () if isinstance(c, Mapping))


def is_tpu_pool(pool: Mapping[str, Any]) -> bool:
    config = value_at(pool, "inputs.nodeConfig") or {}
    return any(isinstance(t, Mapping) and t.get("key") == "google.com/tpu" for t in config.get("taints") or ())


def pools_for(spec: Mapping[str, Any], pools: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The node pools whose nodes can run this pod: TPU-ness, the pool name and the node labels we set agree."""
    selector = spec.get("nodeSelector") or {}
    out = []
    for pool in pools:
        inputs = pool.get("inputs") or {}
        labels = value_at(inputs, "nodeConfig.labels") or {}
        if is_tpu_pool(pool) != wants_tpu(spec):
            continue
        if POOL_LABEL in selector and selector[POOL_LABEL] != inputs.get("name"):
            continue
        if any(key in labels and labels[key] != value for key, value in selector.items()):
            continue
        out.append(pool)
    return out


def pool_mode(pool: Mapping[str, Any]) -> str:
    config = value_at(pool, "inputs.nodeConfig") or {}
    if any(isinstance(d, Mapping) and d.get("mode") == "CONTAINER_IMAGE_CACHE"
           for d in config.get("secondaryBootDisks") or ()):
        return "preloaded"
    if value_at(config, "gcfsConfig.enabled") is True:
        return "streamed"
    return "pulled"


def pull_seconds(images: Iterable[str], mode: str, tpu: bool, table: Mapping[str, float]) -> float:
    """One node's pulls for one pod, images one after another."""
    total = 0.0
    rate = table[f"{RATE_KEY}#{'tpu' if tpu else 'cpu'}"]
    for image in images:
        if mode == "preloaded":
            total += table[PRELOADED_KEY]
        elif mode == "streamed" and any(s in image for s in STREAMABLE):
            total += table[STREAMED_KEY]
        else:
            total += image_size_gb(image, table) * 1000 / rate if rate > 0 else 0.0
    return total


# --- per JobSet ---------------------------------------------------------------------------------


@dataclass
class FirstStep:
    """One JobSet: when `pulumi up` has created it, and when its first step is expected."""

    name: str
    created: float
    pulls: float           # as configured
    modes: list[str]       # the pools' modes, e.g. ["streamed"]
    start: float
    preloaded_pulls: float  # if every pool it uses had an image cache
    cold_pulls: float       # with neither streaming nor an image cache

    @property
    def first_step(self) -> float:
        return self.created + self.pulls + self.start

    @property
    def first_step_preloaded(self) -> float:
        return self.created + self.preloaded_pulls + self.start

    @property
    def first_step_cold(self) -> float:
        return self.created + self.cold_pulls + self.start


def first_steps(jobsets: Iterable[Mapping[str, Any]], pools_by_urn: Mapping[str, Mapping[str, Any]],
                created: Mapping[str, float], table: Mapping[str, float]) -> list[FirstStep]:
    """FirstStep per JobSet; a JobSet's pods may land on the node pools among its dependencies."""
    out = []
    for jobset in jobsets:
        candidates = [pools_by_urn[u] for u in jobset.get("dependsOn") or () if u in pools_by_urn]
        worst = {"configured": 0.0, "preloaded": 0.0, "cold": 0.0}
        modes: list[str] = []
        for rj in value_at(jobset, "inputs.spec.replicatedJobs") or ():
            spec = pod_spec(rj)
            images, tpu = pod_images(spec), wants_tpu(spec)
            for pool in pools_for(spec, candidates) or [{}]:
                mode = pool_mode(pool) if pool else "pulled"
                if mode not in modes:
                    modes.append(mode)
                for scenario, m in (("configured", mode), ("preloaded", "preloaded"), ("cold", "pulled")):
                    worst[scenario] = max(worst[scenario], pull_seconds(images, m, tpu, table))
        out.append(FirstStep(name=jobset["name"], created=created[jobset["urn"]], pulls=worst["configured"],
                             modes=sorted(modes), start=table[START_KEY], preloaded_pulls=worst["preloaded"],
                             cold_pulls=worst["cold"]))
    return out


def image_rows_markdown() -> str:
    """IMAGE_ROWS as Markdown (docs/critical-path.md embeds it; a test keeps it current)."""
    lines = ["| key | value | unit | why / basis |", "|---|---:|---|---|"]
    lines += [f"| `{key}` | {row.value:g} | {row.unit} | {row.why} |" for key, row in IMAGE_ROWS.items()]
    return "\n".join(lines) + "\n"
