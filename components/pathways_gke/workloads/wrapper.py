"""The user container's command: a SIGTERM-propagating bash wrapper around the user's command.

Kubernetes sends SIGTERM to PID 1 on preemption, JobSet restart or delete. A bare `bash -c "python …"` keeps
the signal to itself when the command is compound, so the program never checkpoints. The wrapper (same
contract as XPK's and cluster-toolkit's, PATHWAYS_JOBSET.md §2.7, with their bugs fixed):

- the user command is passed as a separate argument (`"$1"`), never pasted into the script, so multi-line
  commands, quotes and YAML-special characters are safe;
- it runs in its own process group (`set -m`), and SIGTERM is forwarded to the whole group, so compound
  commands (`cd x && python y`, pipelines) are signalled too;
- the handler is guarded against a signal arriving before the child started (empty PID);
- the exit code of the command is the container's exit code (143 after a forwarded SIGTERM).

Note: Kubernetes expands `$(VAR)` references to the container's env in `command`/`args`, and `$$` becomes `$`
— the same for every peer; write `$$` for a literal `$$`.
"""

from __future__ import annotations

WRAPPER_NAME = "pathways-gke-wrapper"

WRAPPER_SCRIPT = """\
set -m
echo "pathways-gke: workload start $(date -u +%Y-%m-%dT%H:%M:%SZ)"
PID=""
forward_term() {
  echo "pathways-gke: SIGTERM received, forwarding to the workload"
  if [ -n "$PID" ]; then
    kill -TERM -- "-$PID" 2>/dev/null || kill -TERM "$PID" 2>/dev/null
    wait "$PID"
  fi
  exit 143
}
trap forward_term TERM
bash -c "$1" &
PID=$!
wait "$PID"
EXIT_CODE=$?
echo "pathways-gke: workload end $(date -u +%Y-%m-%dT%H:%M:%SZ) EXIT_CODE=$EXIT_CODE"
exit "$EXIT_CODE"
"""


def wrapped_command(user_command: str) -> list[str]:
    """`command:` of the user container: bash running the wrapper with the user command as `$1`."""
    return ["bash", "-c", WRAPPER_SCRIPT, WRAPPER_NAME, user_command]
