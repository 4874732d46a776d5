"""The user container's command: the user's program under a SIGTERM-propagating bash wrapper.

Kubernetes stops a pod by sending SIGTERM to the container's PID 1 and, after the grace period,
SIGKILL. When the user's command is a shell pipeline or a multi-line script, PID 1 is a shell that
does not forward the signal, so the training program never gets the chance to checkpoint. XPK and
Cluster Toolkit wrap the command in bash for that reason (https://github.com/AI-Hypercomputer/xpk/blob/v1.16.0/src/xpk/templates/pathways_workload_create.yaml.j2,
cluster-toolkit pkg/orchestrator/gke/templates/pathways_jobset.tmpl); their wrappers
paste the command text into the script (a multi-line command or an unbalanced quote breaks it) and
signal only the direct child (a program started by a multi-line script keeps running).

This wrapper fixes both:
- the command text is never pasted: it is passed to the wrapper as a positional argument and run
  by a child `bash -c "$1"`, so any bash text (several lines, here-documents, quotes, trailing
  backslashes, `exit`) behaves exactly as it would on its own;
- the child runs in its own process group (`set -m`); SIGTERM is forwarded to the whole group, the
  wrapper waits for it to finish and exits 143 (128 + SIGTERM);
- a SIGTERM that arrives before the child has started (PID still empty) exits 143 at once;
- otherwise the wrapper exits with the child's exit code.

The result is a plain list for a container's `command` (built in code, never YAML-pasted text).
The wrapper's own text contains neither `$(` nor `$$`, so Kubernetes' `$(VAR)` expansion of
`command` leaves it unchanged; the user's command gets the usual Kubernetes expansion, as in every
peer (`$(VAR)` of a variable defined in the container's env is replaced, `$$` becomes `$`).
"""

from __future__ import annotations

from typing import Sequence

WRAPPER_NAME = "pathways-gke"  # $0 of the wrapper script (shown in `ps` and in bash's own messages)

_HEAD = """\
echo "pathways-gke: starting the workload command"
PID=
forward_term() {
  # a signal between the fork and `PID=$!` still finds the child through $!
  PID="${PID:-$!}"
  if [ -n "${PID}" ]; then
    echo "pathways-gke: SIGTERM received; forwarding it to the workload (process group ${PID})"
    kill -TERM -- "-${PID}" 2>/dev/null || kill -TERM "${PID}" 2>/dev/null
    wait "${PID}"
  else
    echo "pathways-gke: SIGTERM received before the workload started"
  fi
  exit 143
}
trap forward_term TERM
"""

_TAIL = """\
set -m
bash -c "$1" &
PID=$!
set +m
wait "${PID}"
EXIT_CODE=$?
echo "pathways-gke: workload command exited with code ${EXIT_CODE}"
exit "${EXIT_CODE}"
"""


def wrapper_script(setup: Sequence[str] = ()) -> str:
    """The bash script run as `bash -c SCRIPT pathways-gke COMMAND`.

    `setup` lines are trusted shell (written by pathways-gke, not the user) run after the SIGTERM
    trap is installed and before the user's command starts, e.g. exporting a value computed from
    the pod's downward-API environment. They must not contain `$(` or `$$` (Kubernetes would
    rewrite them).
    """
    for line in setup:
        if "$(" in line or "$$" in line:
            raise ValueError(f"wrapper setup line would be rewritten by Kubernetes' $(VAR) expansion: {line!r}")
    return _HEAD + "".join(f"{line}\n" for line in setup) + _TAIL


def wrap_command(command_text: str, setup: Sequence[str] = ()) -> list[str]:
    """A container `command` running `command_text` under the SIGTERM-propagating wrapper.

    `command_text` is bash text (one line or many), passed as an argument, never pasted.
    """
    if not command_text.strip():
        raise ValueError("the workload command is empty")
    return ["bash", "-c", wrapper_script(setup), WRAPPER_NAME, command_text]
