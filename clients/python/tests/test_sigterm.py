"""SIGTERM to a runner process hands its lease back: the agent is free at once and the next
turn is the same attempt."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rota import Rota

from .node import Node
from .support import capability, register


def test_sigterm_hands_back_the_lease_without_using_an_attempt(
    node: Node, rota: Rota, agent_id: str
) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention", {"postId": "p1"})
    script = Path(__file__).with_name("runner_process.py")
    process = subprocess.Popen(
        [sys.executable, str(script), node.url, f"r-{agent_id}"[:60], capability(agent_id)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.strip() == f"claimed {agent_id} attempt 1", first
        assert rota.get_agent(agent_id)["lease"] is not None

        began = time.monotonic()
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=30)
        took = time.monotonic() - began
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    assert process.returncode == 0, output
    assert "cancelled shutdown" in output
    assert output.rstrip().endswith("stopped")
    assert took < 15, f"stopping took {took:.1f} s (grace 1 s)"
    view = rota.get_agent(agent_id)
    assert view["lease"] is None, "the lease is handed back, not left to expire"
    assert view["inbox"]["unread"] == 1
    failed = [e for e in rota.history(agent_id) if e["type"] == "activation.failed"]
    assert [e["action"] for e in failed] == ["snooze"]

    again = rota.claim(
        "r-after-sigterm", mode="notification", capabilities=[capability(agent_id)], wait_seconds=10
    )
    assert again.activation is not None
    assert again.activation.attempt == 1, "the handed-back turn used up no attempt"
    assert again.activation.notifications[0].payload == {"postId": "p1"}
    rota.complete(again.activation.lease_id, "r-after-sigterm")
