"""The user container's SIGTERM-propagating wrapper, run for real with the local bash."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time

import pytest

from pathways_gke.workloads.wrapper import WRAPPER_SCRIPT, wrapped_command

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


def run(command: str, timeout: float = 20) -> subprocess.CompletedProcess:
    return subprocess.run(wrapped_command(command), capture_output=True, text=True, timeout=timeout)


def test_exit_code_of_the_command_is_the_containers():
    result = run("echo hello; exit 3")
    assert result.returncode == 3
    assert "hello" in result.stdout
    assert "EXIT_CODE=3" in result.stdout


def test_multi_line_commands_with_quotes_and_yaml_characters_run_verbatim():
    command = "x='a b: c'\nif [ -n \"$x\" ]; then\n  echo \"got: $x\" # comment\nfi\necho '{key: [1, 2]}'"
    result = run(command)
    assert result.returncode == 0, result.stderr
    assert "got: a b: c" in result.stdout and "{key: [1, 2]}" in result.stdout


def test_sigterm_reaches_a_compound_commands_grandchild_and_exits_143(tmp_path):
    ready = tmp_path / "ready"
    program = ("import pathlib, signal, sys, time\n"
               "signal.signal(signal.SIGTERM, lambda *a: (print('child got SIGTERM', flush=True), sys.exit(5)))\n"
               f"pathlib.Path({str(ready)!r}).write_text('x')\n"
               "time.sleep(30)\n")
    # two commands: bash cannot exec python directly, so python is a grandchild of the wrapper
    command = f"cd / && {sys.executable} -c \"$PROGRAM\"; echo after"
    proc = subprocess.Popen(wrapped_command(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={"PROGRAM": program, "PATH": "/usr/bin:/bin"})
    deadline = time.monotonic() + 15
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert ready.exists(), "the command did not start"
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=15)
    assert "child got SIGTERM" in out, out
    assert "after" not in out.splitlines()
    assert proc.returncode == 143


def test_sigterm_before_the_command_started_is_handled_without_errors():
    before_start = WRAPPER_SCRIPT.split('bash -c "$1" &')[0] + 'kill -TERM $$\nsleep 5\necho unreachable\n'
    result = subprocess.run(["bash", "-c", before_start, "w", "true"], capture_output=True, text=True, timeout=20)
    assert result.returncode == 143
    assert "unreachable" not in result.stdout
    assert result.stderr == ""  # the empty-PID guard: no 'kill: usage' / 'wait: ...' noise


def test_command_is_an_argument_not_part_of_the_script():
    command = wrapped_command("echo $1 && exit 0")
    assert command[:2] == ["bash", "-c"] and command[2] == WRAPPER_SCRIPT and command[4] == "echo $1 && exit 0"
    assert "echo $1" not in WRAPPER_SCRIPT
