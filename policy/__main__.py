"""pathways-gke policy pack: `pulumi preview --policy-pack policy` (see docs/ci.md).

The rules live in the library (components/pathways_gke/policies.py) and are the same ones
`pathways-gke plan` runs offline; this file only builds the PolicyPack from them.
"""

import sys
from pathlib import Path

# Use the rules of this checkout (an installed pathways-gke works too when this path is absent).
_COMPONENTS = Path(__file__).resolve().parent.parent / "components"
if _COMPONENTS.is_dir():
    sys.path.insert(0, str(_COMPONENTS))

from pulumi_policy import EnforcementLevel, PolicyPack  # noqa: E402

from pathways_gke.policy_pack import PACK_NAME, policies_for_pack  # noqa: E402

PolicyPack(
    name=PACK_NAME,
    enforcement_level=EnforcementLevel.MANDATORY,
    policies=policies_for_pack(),
)
