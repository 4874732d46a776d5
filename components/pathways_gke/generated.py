"""The one print / --write / --check command line of every generated file (schema, argument types, reference docs).

A generated file is committed so that reviewers see its diff; `--check` (run by the tests) fails with that diff
when the committed copy is behind its source.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import Callable, Optional, Sequence

Outputs = Callable[[], dict[Path, tuple[str, str]]]
"""path -> (committed text it should have, what to print for it): called once per run."""


def command(prog: str, summary: str, outputs: Outputs, argv: Optional[Sequence[str]] = None) -> int:
    """`prog`: print what would be written; `prog --write`: write it; `prog --check`: exit 1 with a diff when stale."""
    parser = argparse.ArgumentParser(prog=f"python -m {prog}", description=summary)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the committed files")
    mode.add_argument("--check", action="store_true", help="fail (exit 1) with a diff when a committed file differs")
    args = parser.parse_args(argv)
    stale = 0
    for path, (text, shown) in outputs().items():
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path}", file=sys.stderr)
        elif args.check:
            committed = path.read_text() if path.exists() else ""
            if committed != text:
                print("".join(difflib.unified_diff(committed.splitlines(True), text.splitlines(True),
                                                   f"{path} (committed)", f"{path} (generated)")), end="")
                print(f"{path} is out of date; if the change is intended run: python -m {prog} --write",
                      file=sys.stderr)
                stale = 1
        else:
            print(shown, end="")
    return stale
