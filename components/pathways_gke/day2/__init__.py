"""Day 2: `pathways-gke status | wait | logs | preflight` against a live cluster and Google's APIs.

`state.py` and `checks.py` are pure (no client import): they turn the objects the controllers write (JobSet,
LeaderWorkerSet, Kueue Workload, pods) and the Google API answers into our verdicts. `kube.py` and `google.py`
are the thin client shells (the optional `day2` extra), `commands.py` the CLI.
"""
