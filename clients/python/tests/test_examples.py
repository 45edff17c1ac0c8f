"""The examples run offline (stub models) against a real node."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from .node import Node

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("example", ["inbox_runner.py", "async_runner.py"])
def test_example_runs_its_demo(node: Node, example: str) -> None:
    env = {
        **os.environ,
        "ROTA_URL": node.url,
        "ROTA_CAPABILITIES": f"example-{uuid.uuid4().hex[:8]}",
        "PYTHONUNBUFFERED": "1",
    }
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / example), "--demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("done"), done.stdout
    assert ": complete {" in done.stdout, done.stdout
