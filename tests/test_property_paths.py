"""Pulumi property paths (`spec.replicatedJobs[1].replicas`): formatting, parsing, patterns, and the one
lookup every layer reads nested values with."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathways_gke.property_paths import changed_paths, contains, covers, format_path, parse_path, reset_ignored, value_at


@pytest.mark.parametrize("parts, text", [
    (("nodeConfig", "machineType"), "nodeConfig.machineType"),
    (("spec", "replicatedJobs", 1, "replicas"), "spec.replicatedJobs[1].replicas"),
    (("metadata", "labels", "pathways-gke/tpu-group"), 'metadata.labels["pathways-gke/tpu-group"]'),
    (("a", 'we"ird'), 'a["we\\"ird"]'),
    (("*",), "*"),
])
def test_paths_use_pulumi_property_path_syntax(parts, text):
    assert format_path(parts) == text
    assert parse_path(text) == parts


keys = st.one_of(st.text(min_size=1, max_size=12), st.integers(min_value=0, max_value=50))


@pytest.mark.slow
@given(st.lists(keys, min_size=1, max_size=6))
def test_any_path_round_trips(parts):
    parts = tuple(p for p in parts if p != "*") or ("x",)
    assert parse_path(format_path(parts)) == parts


@pytest.mark.parametrize("bad", ["", ".a", "a..b", "a[", 'a["x]', "a[b]"])
def test_bad_paths_are_refused(bad):
    with pytest.raises(ValueError):
        parse_path(bad)


def test_a_pattern_covers_its_subtree_and_its_ancestors():
    assert covers(("placementPolicy",), ("placementPolicy", "tpuTopology"))
    assert covers(("placementPolicy", "tpuTopology"), ("placementPolicy",))  # the whole block appeared
    assert covers(("spec", "*", "x"), ("spec", 3, "x"))
    assert covers(("*",), ("anything", 1))
    assert not covers(("nodeConfig", "spot"), ("nodeConfig", "machineType"))


def test_changed_paths_are_leaf_most_and_index_lists():
    old = {"a": {"b": 1, "c": [1, 2]}, "gone": 1, "flag": True}
    new = {"a": {"b": 2, "c": [1, 2, 3]}, "new": {"x": 1}, "flag": 1}
    assert [format_path(p) for p in changed_paths(old, new)] == ["a.b", "a.c[2]", "flag", "gone", "new"]


JOBSET = {"metadata": {"name": "train", "labels": {"pathways-gke/tpu-group": "v5p"}},
          "spec": {"replicatedJobs": [{"name": "head", "replicas": 1}, {"name": "worker", "replicas": 4}]}}


@pytest.mark.parametrize("path, value", [
    ("metadata.name", "train"),
    ('metadata.labels["pathways-gke/tpu-group"]', "v5p"),
    (("metadata", "labels", "pathways-gke/tpu-group"), "v5p"),
    ("spec.replicatedJobs[1].replicas", 4),
    (("spec", "replicatedJobs", 0, "name"), "head"),
    ("spec.replicatedJobs", JOBSET["spec"]["replicatedJobs"]),
])
def test_value_at_reads_a_path_or_its_parts(path, value):
    assert value_at(JOBSET, path) == value


@pytest.mark.parametrize("path", [
    "metadata.namespace",               # a missing key
    "spec.replicatedJobs[2].replicas",  # past the end of a list
    "metadata.name.first",              # into a string
    "spec.replicatedJobs.name",         # a key of a list
    ("spec", "replicatedJobs", -1),     # no negative indices
    "spec.replicatedJobs[*].name",      # a lookup names one value: `*` is no wildcard here
])
def test_value_at_gives_the_default_for_what_is_not_there(path):
    assert value_at(JOBSET, path) is None
    assert value_at(JOBSET, path, default="absent") == "absent"


def test_value_at_walks_through_a_present_none_to_the_default():
    assert value_at({"spec": None}, "spec.template", default={}) == {}
    assert value_at({"spec": {"template": None}}, "spec.template", default={}) is None  # present: its value


def test_value_at_refuses_text_that_is_not_a_path():
    with pytest.raises(ValueError):
        value_at(JOBSET, "metadata..name")


# --- the engine's matching: PropertyPath.Contains (sdk/go/common/resource/properties_path.go) --------------------


@pytest.mark.parametrize("pattern, path, expected", [
    ("placementPolicy", "placementPolicy.tpuTopology", True),             # below the pattern
    ("placementPolicy", "placementPolicy", True),                         # the path itself
    ("placementPolicy.tpuTopology", "placementPolicy", False),            # an added ancestor does NOT match
    ("privateClusterConfig.masterIpv4CidrBlock", "privateClusterConfig", False),
    ("spec.template.spec.containers[*].resources", "spec.template.spec.containers[1]", False),  # appended container
    ("spec.template.spec.containers[*].resources", "spec.template.spec.containers[1].resources.requests.cpu", True),
    ("spec.*.x", "spec[3].x", True),                                      # `*` matches a key or an index
    ("spec[0]", 'spec["0"]', False),                                      # an index is not a key
    ("*", "anything[1].below", True),                                     # a lone `*` matches everything
    ("nodeConfig.spot", "nodeConfig.machineType", False),
    ('metadata.labels["kueue.x-k8s.io/queue-name"]', 'metadata.labels["kueue.x-k8s.io/queue-name"]', True),
    ('metadata.labels["kueue.x-k8s.io/queue-name"]', "metadata.labels", False),
])
def test_contains_is_the_engines_property_path_contains(pattern, path, expected):
    assert contains(parse_path(pattern), parse_path(path)) is expected


def test_covers_is_the_value_overlap_a_webhook_compares():
    """Not the engine's matching: a whole value that appeared touches what lies below it (a webhook compares values)."""
    assert covers(parse_path("a.b.c"), parse_path("a")) and not contains(parse_path("a.b.c"), parse_path("a"))


@pytest.mark.parametrize("old, new, ignore, expected", [
    ({"a": {"b": 1}}, {"a": {"b": 2, "c": 3}}, ["a.b"], {"a": {"b": 1, "c": 3}}),      # reset to the old value
    ({"a": {}}, {"a": {"b": 2}}, ["a.b"], {"a": {}}),                                 # absent before: dropped
    ({"n": 1, "m": 1}, {"n": 3, "m": 2}, ["n"], {"n": 1, "m": 2}),
    ({"l": [{"x": 1}, {"x": 2}]}, {"l": [{"x": 5}, {"x": 6}]}, ["l[*].x"], {"l": [{"x": 1}, {"x": 2}]}),
    ({"a": {"b": 1}}, {"a": {"b": 2}}, ["*"], {"a": {"b": 1}}),
])
def test_reset_ignored_is_the_engines_process_ignore_changes(old, new, ignore, expected):
    assert reset_ignored(old, new, [parse_path(p) for p in ignore]) == expected
    assert new != expected  # the input is not modified
