"""A tiny multi-controller JAX program: every process joins, then they reduce across processes.

Everything comes from the environment pathways-gke gives each pod: JAX reads JAX_COORDINATOR_ADDRESS
itself (and JAX_PLATFORMS); JAX 0.10 has no environment variable for the process count and id, so they
are passed from JAX_NUM_PROCESSES / JAX_PROCESS_ID. Prints one JSON line for the test to check.
"""

import json
import os

import jax
import jax.numpy as jnp
from jax.experimental import multihost_utils
from jax.sharding import NamedSharding, PartitionSpec

jax.distributed.initialize(num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
                           process_id=int(os.environ["JAX_PROCESS_ID"]))

me = jax.process_index()
# all-gather: every process learns every process's id
gathered = multihost_utils.process_allgather(jnp.array([me], dtype=jnp.int32)).ravel().tolist()
# all-reduce: a global array with one element per device (process), summed by one jitted computation
mesh = jax.make_mesh((jax.device_count(),), ("processes",))
local = jnp.full((jax.local_device_count(),), me + 1, dtype=jnp.int32)
values = jax.make_array_from_process_local_data(NamedSharding(mesh, PartitionSpec("processes")), local)
total = jax.jit(jnp.sum, out_shardings=NamedSharding(mesh, PartitionSpec()))(values)

print("RESULT " + json.dumps({
    "process_index": me,
    "process_count": jax.process_count(),
    "backend": jax.default_backend(),
    "coordinator": os.environ["JAX_COORDINATOR_ADDRESS"],
    "gathered": gathered,
    "sum": int(total),
}), flush=True)
jax.distributed.shutdown()
