"""Day 2: `pathways-gke status | wait | logs | suspend | resume | preflight` against a live cluster and Google's APIs.

`state.py`, `blockers.py`, `stop.py`, `pods.py` and `checks.py` are pure (no client import): they turn the objects
the controllers write (JobSet, LeaderWorkerSet, Kueue Workload, pods, events) and the Google API answers into our
verdicts, and say which change suspends a workload. `kube.py` and `google.py` are the thin client shells (the
optional `day2` extra), `commands.py` and `preflight.py` the CLI.
"""
