"""The pure builders of the workload objects: a workload model and where it runs in, Kubernetes objects out.

Plain data, no Pulumi import and no component import (tests/test_layers.py): the components, the identity planner,
the offline plan and the tests all read the objects these functions return.
"""
