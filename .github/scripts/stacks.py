"""Stack names for workflow matrices: stacks/Pulumi.<name>.yaml -> JSON lists on $GITHUB_OUTPUT.

    all=["dev","jax","prod"]        every stack (preview, drift)
    nonprod=["dev","jax"]           every stack but prod (deployed before prod)
    prod=true                       whether stacks/Pulumi.prod.yaml exists
Without $GITHUB_OUTPUT (a local run) the lines go to stdout.
"""

import json
import os
import sys
from pathlib import Path

PROD = "prod"


def stacks(root: Path) -> list[str]:
    return sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (root / "stacks").glob("Pulumi.*.yaml"))


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")
    names = stacks(root)
    lines = [f"all={json.dumps(names, separators=(',', ':'))}",
             f"nonprod={json.dumps([n for n in names if n != PROD], separators=(',', ':'))}",
             f"prod={'true' if PROD in names else 'false'}"]
    target = os.environ.get("GITHUB_OUTPUT")
    if target:
        with open(target, "a") as out:
            out.write("\n".join(lines) + "\n")
    else:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
