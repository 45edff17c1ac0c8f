"""A real Rota node for the tests: ``rota-server.jar`` on random free ports, H2 in a temp dir."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[3]
DEFAULT_JAR = REPOSITORY / "modules" / "rota-server" / "target" / "rota-server.jar"
READY_TIMEOUT = float(os.environ.get("ROTA_TEST_READY_TIMEOUT", "120"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Node:
    process: subprocess.Popen[bytes]
    url: str
    management_url: str
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def start_node(directory: Path) -> Node:
    """Starts the node and waits for its ``/ready``; fails saying what is missing otherwise."""
    jar = Path(os.environ.get("ROTA_SERVER_JAR", str(DEFAULT_JAR)))
    if not jar.is_file():
        raise RuntimeError(
            f"{jar} is missing: build it first with "
            "`mvn -B -q -pl modules/rota-server -am package -DskipTests` "
            "(or point ROTA_SERVER_JAR at a rota-server.jar)"
        )
    java = shutil.which("java", path=os.path.join(os.environ.get("JAVA_HOME", ""), "bin"))
    java = java or shutil.which("java")
    if java is None:
        raise RuntimeError("java (17 or later) is not on the PATH, nor under JAVA_HOME")
    http_port, management_port, cluster_port = free_port(), free_port(), free_port()
    env = dict(os.environ)
    for key in [k for k in env if k.startswith("ROTA_")]:
        del env[key]
    env.update(
        ROTA_HTTP_PORT=str(http_port),
        ROTA_MANAGEMENT_PORT=str(management_port),
        ROTA_CLUSTER_PORT=str(cluster_port),
        ROTA_DATA_DIR=str(directory / "data"),
        ROTA_LOG_LEVEL="WARN",
    )
    log = directory / "node.log"
    command = [
        java,
        "-Xmx384m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-jar",
        str(jar),
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=directory, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    node = Node(
        process,
        f"http://127.0.0.1:{http_port}",
        f"http://127.0.0.1:{management_port}",
        log,
    )
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the node exited with {process.returncode}:\n{node.log_tail()}")
        try:
            with urllib.request.urlopen(node.management_url + "/ready", timeout=2) as answer:
                if answer.status == 200:
                    return node
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.3)
    node.stop()
    raise RuntimeError(f"the node was not ready within {READY_TIMEOUT} s:\n{node.log_tail()}")
