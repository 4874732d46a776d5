"""Render XPK's own Pathways JobSet for a configuration, as JSON on stdout.

Run with an interpreter that has `xpk==1.16.0` installed (it is not a dependency of pathways-gke):
    python tests/support/xpk_render.py '{"device": "v6e-16", "slices": 4, ...}'
Uses XPK's dry-run mode (no gcloud, no cluster) and calls the function `xpk workload create-pathways` uses to
build its manifest, so the output is exactly what XPK would apply.
"""

import argparse
import json
import sys
from unittest import mock

import yaml
from xpk.utils.execution_context import set_dry_run

set_dry_run(True)

import xpk.commands.workload as workload_cmd  # noqa: E402
import xpk.core.docker_image as docker_image  # noqa: E402
from xpk.core import scheduling  # noqa: E402
from xpk.core.system_characteristics import (create_machine_label,  # noqa: E402
                                             get_system_characteristics_by_device_type)


def render(config: dict) -> dict:
    system, rc = get_system_characteristics_by_device_type(config["device"])
    if rc != 0:
        raise SystemExit(f"unknown XPK device {config['device']}")
    version = config.get("version", "jax-0.9.2")
    args = argparse.Namespace(
        workload=config.get("workload", "train"), headless=config.get("headless", False),
        command=config.get("command"), docker_image=config.get("image"),
        base_docker_image=docker_image.DEFAULT_DOCKER_IMAGE, script_dir=docker_image.DEFAULT_SCRIPT_DIR,
        docker_name=config.get("docker_name", "jax-tpu"), pathways_gcs_location=config["gcs"],
        num_slices=config["slices"], elastic_slices=config.get("elastic_slices", 0),
        max_slice_restarts=config.get("max_slice_restarts", 1),
        termination_grace_period_seconds=config.get("tgps", 30), priority=config.get("priority", "medium"),
        colocated_python_sidecar_image=config.get("sidecar"),
        proxy_server_image=f"us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server:{version}",
        server_image=f"us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:{version}",
        custom_pathways_proxy_server_args=config.get("proxy_args"),
        custom_pathways_server_args=config.get("server_args"),
        custom_pathways_worker_args=config.get("worker_args"),
        use_pathways=True, debug_dump_gcs=None, enable_debug_logs=False, deploy_stacktrace_sidecar=False,
        env=config.get("env", {}), env_file=None, restart_on_exit_codes=None, project="acme", zone="us-east5-b",
        cluster="pw", max_restarts=config.get("max_restarts", 0), use_vertex_tensorboard=False, mtc_enabled=False,
        output_manifest_file=None, docker_image_pull_secret=None, ttl_seconds_after_finished=None,
        sub_slicing_topology=None,
    )
    placement = ""
    if scheduling.is_placement_policy_supported(system):
        placement = scheduling.create_placement_policy_label(system, super_slicing=False)
    with mock.patch.object(docker_image, "validate_docker_image", return_value=0):
        text = workload_cmd._generate_pathways_workload_yaml(  # noqa: SLF001 - what create-pathways calls
            args, system, 1, placement, None, create_machine_label(system), "",
            scheduling.ONE_TO_ONE_REPLICA_NODE_POOL_ASSIGNMENT_ANNOTATION)
    return yaml.safe_load(text)


if __name__ == "__main__":
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):  # XPK prints its progress to stdout
        result = render(json.loads(sys.argv[1]))
    print(json.dumps(result))
