"""A small local HTTP server that answers from a script, to produce 503 and 429 on demand."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Hit:
    method: str
    path: str
    body: Any
    at: float


class FakeRota:
    """Answers each request with the next scripted answer (the last one repeats). ``routes``
    script a path's last segment (``claims``, ``heartbeat``, ``complete``, ...) on its own."""

    def __init__(
        self,
        answers: list[Answer],
        routes: dict[str, list[Answer]] | None,
        responder: Callable[[Any], Answer] | None = None,
    ) -> None:
        self.answers = answers
        self.routes = routes or {}
        self.responder = responder
        self.hits: list[Hit] = []
        self.lock = threading.Lock()
        self.url = ""

    def next_answer(self, method: str, path: str, body: Any) -> Answer:
        with self.lock:
            self.hits.append(Hit(method, path, body, time.monotonic()))
            if self.responder is not None:
                return self.responder(body)
            script = self.routes.get(path.split("?")[0].rsplit("/", 1)[-1], self.answers)
            return script.pop(0) if len(script) > 1 else script[0]

    def hits_to(self, last_segment: str) -> list[Hit]:
        with self.lock:
            return [h for h in self.hits if h.path.split("?")[0].endswith("/" + last_segment)]


def error(status: int, code: str, retry_after: int | None = None) -> Answer:
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
    return Answer(status, {"error": code, "message": f"scripted {code}"}, headers)


@contextmanager
def fake_rota(
    answers: list[Answer],
    routes: dict[str, list[Answer]] | None = None,
    responder: Callable[[Any], Answer] | None = None,
) -> Iterator[FakeRota]:
    """``responder``, when given, answers every request from its body instead of a script."""
    fake = FakeRota(answers, routes, responder)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            answer = fake.next_answer(self.command, self.path, json.loads(raw) if raw else None)
            time.sleep(answer.delay)
            data = json.dumps(answer.body).encode()
            self.send_response(answer.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a client that hung up (a runner abandoning its claim) is no failure here

    server = Server(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
