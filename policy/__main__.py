"""pathways-gke policy pack: `pulumi preview --policy-pack policy` (see docs/ci.md).

The rules live in the released pathways-gke package (pathways_gke.policies, the same ones `pathways-gke plan`
runs offline; requirements.txt pins it); this file only builds the PolicyPack from them. The folder is
self-contained, so `pulumi policy publish` can publish it. First local use: `pulumi install` in this folder.
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from pathways_gke.policy_pack import PACK_NAME, policies_for_pack

PolicyPack(
    name=PACK_NAME,
    enforcement_level=EnforcementLevel.MANDATORY,
    policies=policies_for_pack(),
)
