"""The SIGTERM-propagating command wrapper, exercised with a real bash and real signals."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from pathways_gke.render.wrapper import WRAPPER_NAME, wrap_command, wrapper_script
from tests.support.pods import expand

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")

TIMEOUT = 20


def run(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, env=env)


def start(argv: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def wait_for_line(proc: subprocess.Popen[str], text: str) -> list[str]:
    assert proc.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if text in line:
            return seen
    os.killpg(proc.pid, signal.SIGKILL)
    pytest.fail(f"never printed {text!r}; output so far: {''.join(seen)!r}")


def live_processes_in_session(sid: int) -> list[str]:
    """Processes still running in a session (zombies are dead, merely not reaped by this test's init)."""
    time.sleep(0.2)
    ps = subprocess.run(["ps", "-o", "stat=,pid=,args=", "-s", str(sid)], capture_output=True, text=True)
    return [line for line in ps.stdout.splitlines() if line.strip() and not line.strip().startswith("Z")]


def test_the_command_is_a_list_with_the_user_text_as_its_own_argument():
    argv = wrap_command("python3 train.py --steps=10")
    assert argv[:2] == ["bash", "-c"]
    assert argv[3:] == [WRAPPER_NAME, "python3 train.py --steps=10"]
    assert "python3 train.py" not in argv[2]  # never pasted into the script


def test_the_wrapper_text_is_left_alone_by_kubernetes_expansion():
    script = wrapper_script(["export X=1"])
    assert "$(" not in script and "$$" not in script
    assert expand(script, {"PID": "1", "EXIT_CODE": "2", "X": "3"}) == script


def test_setup_lines_that_kubernetes_would_rewrite_are_refused():
    with pytest.raises(ValueError, match="expansion"):
        wrapper_script(["export X=$(date)"])
    with pytest.raises(ValueError, match="empty"):
        wrap_command("   ")


def test_the_exit_code_of_the_command_is_the_exit_code_of_the_container():
    done = run(wrap_command("echo working; exit 3"))
    assert done.returncode == 3
    assert "working" in done.stdout
    assert "workload command exited with code 3" in done.stdout


@pytest.mark.parametrize("text, expected", [
    ('echo "one (two"\necho three', "one (two\nthree\n"),  # several lines, unbalanced parenthesis
    ("cat <<'EOT'\n$HOME stays literal\nEOT", "$HOME stays literal\n"),  # here-document
    ("echo it\\'s \\\n  continued", "it's continued\n"),  # quotes and a trailing-backslash continuation
    ("exit 0\necho never", ""),  # an exit in the user's text ends the user's command only
    ("# only a comment at the end", ""),
])
def test_multi_line_commands_behave_as_they_would_on_their_own(text, expected):
    wrapped = run(wrap_command(text))
    alone = run(["bash", "-c", text])
    assert wrapped.returncode == alone.returncode == 0
    body = wrapped.stdout.split("\n", 1)[1].rsplit("pathways-gke: workload command exited", 1)[0]
    assert body == alone.stdout == expected


def test_setup_exports_are_visible_to_the_command():
    done = run(wrap_command('echo "id=$JAX_PROCESS_ID"', setup=["JAX_PROCESS_ID=7", "export JAX_PROCESS_ID"]))
    assert "id=7" in done.stdout


@pytest.mark.slow
def test_sigterm_reaches_every_process_of_a_multi_line_command_and_the_container_exits_143():
    # The user's command is a script whose python child handles SIGTERM (e.g. to checkpoint) and
    # which also has a background helper; signalling only the script's shell would orphan both.
    program = ("import signal, sys, time\n"
               "def stop(*_):\n    print('python: checkpointed on SIGTERM', flush=True); sys.exit(0)\n"
               "signal.signal(signal.SIGTERM, stop)\n"
               "print('python: training', flush=True)\n"
               "time.sleep(60)\n")
    text = f"sleep 60 &\necho helper started\n{sys.executable} -c \"{program}\"\necho not reached"
    proc = start(wrap_command(text))
    try:
        wait_for_line(proc, "python: training")
        proc.send_signal(signal.SIGTERM)  # what the kubelet does to the container's PID 1
        out, _ = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert "python: checkpointed on SIGTERM" in out
    assert "forwarding it to the workload" in out
    assert "not reached" not in out
    assert proc.returncode == 143
    assert live_processes_in_session(proc.pid) == [], "processes of the workload outlived the container"


def test_sigterm_before_the_command_starts_exits_143_at_once():
    # The trap is installed before setup runs; a signal there finds no child (empty PID).
    done = run(wrap_command("echo should not run", setup=['kill -TERM "${BASHPID}"']))
    assert done.returncode == 143
    assert "before the workload started" in done.stdout
    assert "should not run" not in done.stdout


def test_sigterm_between_fork_and_pid_assignment_still_reaches_the_command():
    # Under load the kubelet's SIGTERM can land after `bash -c "$1" &` forked but before `PID=$!` ran.
    # Simulate exactly that: fork the command, signal the wrapper, and only then (never) assign PID.
    script = wrapper_script().replace('PID=$!\n', 'kill -TERM "${BASHPID}"\nsleep 5\n')
    assert 'kill -TERM "${BASHPID}"' in script
    command = ("trap 'echo command: got SIGTERM; exit 0' TERM\n"
               "echo command: running\n"
               "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1; done")
    done = subprocess.run(["bash", "-c", script, WRAPPER_NAME, command], capture_output=True, text=True,
                          timeout=30, start_new_session=True)
    assert done.returncode == 143
    assert "forwarding it to the workload" in done.stdout
    assert "before the workload started" not in done.stdout
