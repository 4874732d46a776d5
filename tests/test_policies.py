"""Guardrails: every rule passes on a good resource and fails on a bad one, offline and through the
pulumi-policy adapters (the `validate` functions the policy pack registers)."""

import json

import pytest

from pathways_gke import policies
from pathways_gke.policies import (
    ADVISORY,
    MANDATORY,
    check_plan,
    check_resources,
    level_and_settings,
    offline_config,
    render_violations,
)
from tests.conftest import ROOT
from tests.support.plans import CLUSTER_T, JOBSET_T, POOL_T, container, edited, jobset_inputs, mini_plan, named, \
    pool_inputs, resource

pulumi_policy = pytest.importorskip("pulumi_policy", reason="pulumi-policy (dev extra) is needed for the pack tests")
from pathways_gke import policy_pack  # noqa: E402


def names(violations, policy=None):
    return [(v.policy, v.name) for v in violations if policy is None or v.policy == policy]


def jobset(name="train", **kwargs):
    return resource([JOBSET_T], name, inputs=jobset_inputs(name=name, **kwargs))


def lws(name="chat"):
    return resource(["kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"], name, inputs={
        "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": {"name": name},
        "spec": {"leaderWorkerTemplate": {"workerTemplate": {"spec": {"containers": [
            container("worker", "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:jax-0.9.2")]}}}}})


def lws_crd(protect):
    name = "leaderworkersets.leaderworkerset.x-k8s.io"
    return resource(["kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"], name, protect=protect,
                    inputs={"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                            "metadata": {"name": name}})


def deployment(image):
    return resource(["kubernetes:apps/v1:Deployment"], "tool", inputs={
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "tool"},
        "spec": {"template": {"spec": {"initContainers": [container("init", image)],
                                       "containers": [container("main", "busybox:1.36")]}}}})


def prod_cluster(protect=True, deletion_protection=True, env="prod"):
    return resource([CLUSTER_T], "pw-prod-cluster", protect=protect,
                    inputs={"name": "pw-prod", "deletionProtection": deletion_protection,
                            "resourceLabels": {"env": env}})


def tpu_pool(name, zone="us-east5-b", group="main", **extra):
    inputs = pool_inputs(0, zone=zone)
    inputs["nodeConfig"]["labels"] = {"pathways-gke/tpu-group": group}
    inputs.update(extra)
    return resource([POOL_T], name, inputs=inputs)


# --- each rule: a passing and a failing case ---------------------------------------------------------

CASES = {
    "pathways-gke-pinned-images": (
        [jobset(), deployment("busybox:1.36"), jobset(image="gcr.io/x/y@sha256:" + "a" * 64)],
        [jobset(image="us-docker.pkg.dev/acme/train:latest"), jobset(image="us-docker.pkg.dev/acme/train"),
         deployment("registry:5000/tool")],
    ),
    "pathways-gke-no-privileged": (
        [jobset()],
        [jobset(privileged=True)],
    ),
    "pathways-gke-protect-production": (
        [prod_cluster(), prod_cluster(protect=False, deletion_protection=False, env="dev")],
        [prod_cluster(protect=False), prod_cluster(deletion_protection=False)],
    ),
    "pathways-gke-protect-jobset-crd": (
        [named(mini_plan(), "jobsets.jobset.x-k8s.io"), lws_crd(protect=True)],
        [named(edited(mini_plan(), "jobsets.jobset.x-k8s.io", options__protect=False), "jobsets.jobset.x-k8s.io"),
         lws_crd(protect=False)],
    ),
    "pathways-gke-workload-names": (
        [jobset("a" * 22), jobset("train-1"), lws("a" * 50)],
        [jobset("a" * 23), jobset("Train"), jobset("1st"), jobset("trailing-"), lws("a" * 51), lws("Chat")],
    ),
    "pathways-gke-tpu-placement": (
        [tpu_pool("p0"), tpu_pool("single", nodeCount=1, placementPolicy=None)],
        [tpu_pool("p1", placementPolicy={"type": "COMPACT"})],
    ),
}


def test_every_rule_has_cases():
    # the stack rules are checked on whole plans: one zone here below, the pods' fit in tests/test_pods_fit.py
    assert set(CASES) == set(policies.RULES_BY_NAME) - {"pathways-gke-one-zone-per-tpu-group", "pathways-gke-pods-fit",
                                                        "pathways-gke-queued-pods-fit"}


@pytest.mark.parametrize("policy", sorted(CASES))
def test_rule_passes_good_resources(policy):
    good, _ = CASES[policy]
    assert names(check_resources(good), policy) == []


@pytest.mark.parametrize("policy", sorted(CASES))
def test_rule_fails_bad_resources(policy):
    _, bad = CASES[policy]
    stack = "prod" if policy == "pathways-gke-protect-jobset-crd" else "dev"  # the CRD rule is for production
    for r in bad:
        found = check_resources([r], {"stack": stack})
        assert names(found, policy) == [(policy, r["name"])], f"{policy} missed {r['name']}: {found}"


def test_an_unprotected_jobset_crd_is_right_outside_production():
    """A dev stack's CRD is unprotected on purpose: `pulumi destroy -s dev` must not meet a protected resource."""
    crd = named(edited(mini_plan(), "jobsets.jobset.x-k8s.io", options__protect=False), "jobsets.jobset.x-k8s.io")
    assert check_resources([crd], {"stack": "dev"}) == []
    assert names(check_resources([crd], {"stack": "prod"}), "pathways-gke-protect-jobset-crd")


def test_only_the_jobset_crd_must_be_protected():
    other = edited(mini_plan(), "jobsets.jobset.x-k8s.io", options__protect=False,
                   inputs__metadata={"name": "workloads.kueue.x-k8s.io"})
    assert check_resources(other["resources"]) == []


def test_one_zone_per_tpu_group_passes_and_fails():
    same = [tpu_pool("a0"), tpu_pool("a1"), tpu_pool("b0", zone="us-central1-a", group="other")]
    assert check_resources(same) == []
    spread = check_resources([tpu_pool("a0"), tpu_pool("a1", zone="us-east5-c")])
    assert [v.policy for v in spread] == ["pathways-gke-one-zone-per-tpu-group"]
    assert "spans several zones (us-east5-b: a0; us-east5-c: a1)" in spread[0].message
    two_zones = check_resources([tpu_pool("a0", nodeLocations=["us-east5-b", "us-east5-c"])])
    assert two_zones[0].name == "a0" and "exactly one zone" in two_zones[0].message


def test_unknown_values_are_skipped_not_guessed():
    assert check_resources([jobset(image="<computed>"), tpu_pool("a0", nodeLocations="<computed>")]) == []


def test_allow_privileged_by_name_or_for_all():
    bad = jobset(privileged=True)
    assert check_resources([bad], offline_config("dev", ["train"])) == []
    assert check_resources([bad], {"pathways-gke-no-privileged": {"allowPrivileged": True}}) == []
    assert names(check_resources([bad], offline_config("dev", ["other"])))


def test_production_is_detected_from_config_label_or_stack_name():
    unlabelled = prod_cluster(protect=False, env="dev")
    assert check_resources([unlabelled], {"stack": "dev"}) == []
    assert names(check_resources([unlabelled], {"stack": "prod-eu"}))
    assert names(check_resources([unlabelled], {"pathways-gke-protect-production": {"production": True}}))
    assert check_resources([prod_cluster(protect=False)],
                           {"pathways-gke-protect-production": {"production": False}}) == []


def test_levels_come_from_the_config_like_a_policy_pack_config():
    rule = policies.RULES_BY_NAME["pathways-gke-pinned-images"]
    assert level_and_settings(rule, None) == (MANDATORY, {})
    assert level_and_settings(rule, {"all": "advisory"})[0] == ADVISORY
    assert level_and_settings(rule, {"all": "advisory", rule.name: "mandatory"})[0] == MANDATORY
    assert check_resources([jobset(image="x/y:latest")], {rule.name: "disabled"}) == []
    with pytest.raises(ValueError, match="allowed: mandatory, advisory, disabled"):
        level_and_settings(rule, {rule.name: "warn"})


def test_violations_render_with_level_policy_and_resource():
    text = render_violations(check_resources([jobset("a" * 23)]))
    assert text.startswith("policy: 1 violation (1 mandatory)")
    assert f"[mandatory] pathways-gke-workload-names: {'a' * 23}: JobSet name" in text


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_shipped_stacks_pass_every_policy(stack, stack_plans):
    assert check_plan(stack_plans(stack).to_json()) == []


def test_the_mini_plan_passes_every_policy():
    assert check_plan(mini_plan()) == []


# --- the policy pack's validate adapters ------------------------------------------------------------


def validation_args(r, config=None):
    from pulumi_policy.policy import PolicyCustomTimeouts, PolicyResourceOptions, ResourceValidationArgs
    from pulumi_policy.proxy import unknown_checking_proxy

    opts = PolicyResourceOptions(protect=r["options"].get("protect", False), ignore_changes=[],
                                 delete_before_replace=False, aliases=[],
                                 custom_timeouts=PolicyCustomTimeouts(0, 0, 0), additional_secret_outputs=[],
                                 parent=r.get("parent"))
    return ResourceValidationArgs(r["type"], unknown_checking_proxy(json.loads(json.dumps(r["inputs"]))), r["urn"],
                                  r["name"], opts, None, config or {})


def pack_policy(name):
    return next(p for p in policy_pack.policies_for_pack() if p.name == name)


def run_resource_policy(name, r, config=None):
    reported = []
    pack_policy(name).validate(validation_args(r, config), lambda message, urn=None: reported.append(message))
    return reported


def test_the_pack_has_one_policy_per_rule_with_its_level():
    from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

    pack = policy_pack.policies_for_pack()
    assert [p.name for p in pack] == [r.name for r in policies.RULES]
    kinds = {p.name: type(p) for p in pack}
    assert kinds["pathways-gke-one-zone-per-tpu-group"] is StackValidationPolicy
    assert kinds["pathways-gke-pinned-images"] is ResourceValidationPolicy
    levels = {p.name: p.enforcement_level for p in pack}
    assert levels["pathways-gke-tpu-placement"] == EnforcementLevel.ADVISORY
    assert levels["pathways-gke-pinned-images"] == EnforcementLevel.MANDATORY


@pytest.mark.parametrize("policy", sorted(CASES))
def test_pack_validate_agrees_with_the_offline_rule(policy):
    good, bad = CASES[policy]
    for r in good:
        assert run_resource_policy(policy, r) == [], r["name"]
    # the pack sees one resource: production comes from its config (the CRD rule applies only there)
    config = {"production": True} if policy == "pathways-gke-protect-jobset-crd" else {}
    for r in bad:
        assert len(run_resource_policy(policy, r, config)) >= 1, r["name"]


def test_pack_reads_its_own_config():
    assert run_resource_policy("pathways-gke-no-privileged", jobset(privileged=True), {"allowPrivileged": ["train"]}) \
        == []
    assert run_resource_policy("pathways-gke-protect-production", prod_cluster(protect=False, env="dev"),
                               {"production": True})


def test_pack_turns_preview_unknowns_into_skipped_values():
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

    r = jobset(image="x/y:latest")
    r["inputs"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"] = \
        UNKNOWN_STRING_VALUE
    assert run_resource_policy("pathways-gke-pinned-images", r) == []


def test_pack_stack_policy_sees_every_tpu_pool():
    from pulumi_policy.policy import PolicyCustomTimeouts, PolicyResource, PolicyResourceOptions, StackValidationArgs

    def policy_resource(r):
        opts = PolicyResourceOptions(False, [], False, [], PolicyCustomTimeouts(0, 0, 0), [])
        return PolicyResource(r["type"], r["inputs"], r["urn"], r["name"], opts, None, None, [], {})

    policy = pack_policy("pathways-gke-one-zone-per-tpu-group")
    reported = []
    args = StackValidationArgs([policy_resource(tpu_pool("a0")), policy_resource(tpu_pool("a1", zone="us-east5-a"))],
                               {})
    policy.validate(args, lambda message, urn=None: reported.append((message, urn)))
    assert len(reported) == 1 and "spans several zones" in reported[0][0]


def test_policy_pack_directory_is_complete():
    policy_dir = ROOT / "policy"
    assert (policy_dir / "PulumiPolicy.yaml").is_file()
    main = (policy_dir / "__main__.py").read_text()
    assert "PolicyPack(" in main and "policies_for_pack()" in main
    assert "pulumi-policy" in (policy_dir / "requirements.txt").read_text()
    compile(main, str(policy_dir / "__main__.py"), "exec")
