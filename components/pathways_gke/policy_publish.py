"""The policy pack's release: its version is the package's, and a self-contained folder to publish.

    python -m pathways_gke.policy_publish [--write | --check]   policy/PulumiPolicy.yaml's `version:` from
                                                                 pathways_gke.__version__ (one source)
    python -m pathways_gke.policy_publish --stage DIR           policy/ with a wheel of this checkout, for
                                                                 `cd DIR && pulumi policy publish ORG`

policy/requirements.txt names the package by path (`..`, this checkout): `pulumi install` in policy/ never looks
`pathways-gke` up on a package index, where a package of that name published by someone else would win
(dependency confusion). A published pack is unpacked elsewhere, where `..` is nothing: the staged folder carries
the wheel and names it by path (`./pathways_gke-<version>-py3-none-any.whl`), so it needs no index either.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence

from . import __version__
from .generated import command

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "policy"
_VERSION_LINE = re.compile(r"^version: .*$", re.MULTILINE)


def manifest_text(text: str, version: str = __version__) -> str:
    """PulumiPolicy.yaml text with its `version:` set to `version`."""
    if _VERSION_LINE.search(text) is None:
        raise ValueError("policy/PulumiPolicy.yaml has no top-level `version:` line")
    return _VERSION_LINE.sub(f"version: {version}", text, count=1)


def outputs() -> dict[Path, tuple[str, str]]:
    path = POLICY / "PulumiPolicy.yaml"
    text = manifest_text(path.read_text())
    return {path: (text, text)}


def index_requirements(text: str) -> list[str]:
    """The requirement lines of policy/requirements.txt other than the package itself (the path `..`)."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [line for line in lines if line not in ("..", "../")]


def stage(out: Path, wheel: Optional[Path] = None) -> Path:
    """Write a publishable copy of policy/ into `out`: its files, a wheel of this checkout (built without
    build isolation unless `wheel` is given) and requirements naming that wheel by path. Returns `out`."""
    if not (POLICY / "PulumiPolicy.yaml").is_file():
        raise FileNotFoundError(f"{POLICY}: stage the policy pack from a checkout of the repository")
    out.mkdir(parents=True, exist_ok=True)
    if wheel is None:
        subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
                       check=True, stdout=subprocess.DEVNULL)
        wheel = out / f"pathways_gke-{__version__}-py3-none-any.whl"
    elif wheel.parent.resolve() != out.resolve():
        wheel = Path(shutil.copy2(wheel, out))
    if not wheel.is_file():
        raise FileNotFoundError(f"{wheel}: no wheel of pathways-gke {__version__}")
    shutil.copy2(POLICY / "__main__.py", out / "__main__.py")
    (out / "PulumiPolicy.yaml").write_text(manifest_text((POLICY / "PulumiPolicy.yaml").read_text()))
    requirements = index_requirements((POLICY / "requirements.txt").read_text())
    (out / "requirements.txt").write_text(
        "# staged by python -m pathways_gke.policy_publish: the package is the wheel beside this file\n"
        f"./{wheel.name}\n" + "".join(f"{line}\n" for line in requirements))
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--stage"]:
        if len(argv) != 2:
            print("usage: python -m pathways_gke.policy_publish --stage DIR", file=sys.stderr)
            return 2
        print(f"staged {stage(Path(argv[1]))}; publish with: cd {argv[1]} && pulumi policy publish ORG",
              file=sys.stderr)
        return 0
    return command("pathways_gke.policy_publish", __doc__.split("\n")[0], outputs, argv)


if __name__ == "__main__":
    sys.exit(main())
