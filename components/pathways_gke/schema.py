"""The component schema snapshot (schema/pathways-gke.schema.json): print, write or check it.

    python -m pathways_gke.schema            # print the inferred schema
    python -m pathways_gke.schema --write    # update the committed snapshot (after an intended change)
    python -m pathways_gke.schema --check    # exit 1 with a diff when the snapshot is out of date

The schema is what `pulumi package get-schema ./provider` would print; it is inferred in process by the
SDK's analyzer (the code path the plugin host uses), so no Pulumi CLI is needed.
"""

import argparse
import difflib
import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

SNAPSHOT = Path("schema") / "pathways-gke.schema.json"


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def current() -> str:
    from .provider import package_schema

    return render(package_schema())


def diff(old: str, new: str, path: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"{path} (committed)",
                                        f"{path} (inferred)"))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pathways_gke.schema", description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the snapshot file")
    mode.add_argument("--check", action="store_true", help="fail (exit 1) when the snapshot differs")
    parser.add_argument("--path", type=Path, default=SNAPSHOT, help=f"snapshot file (default: {SNAPSHOT})")
    args = parser.parse_args(argv)
    text = current()
    if args.write:
        args.path.parent.mkdir(parents=True, exist_ok=True)
        args.path.write_text(text)
        print(f"wrote {args.path}", file=sys.stderr)
        return 0
    if args.check:
        committed = args.path.read_text() if args.path.exists() else ""
        if committed != text:
            print(diff(committed, text, str(args.path)), end="")
            print(f"{args.path} is out of date; if the change is intended run: python -m pathways_gke.schema --write",
                  file=sys.stderr)
            return 1
        return 0
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
