"""A TCP proxy whose open connections the test can cut, to drop an event stream mid-way."""

from __future__ import annotations

import contextlib
import socket
import threading


class Proxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        self.accepted = 0
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            with self.lock:
                self.sockets += [client, upstream]
                self.accepted += 1
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                target.shutdown(socket.SHUT_WR)

    def cut(self) -> None:
        """Drops every open connection at once, as a failing network would."""
        with self.lock:
            sockets, self.sockets = self.sockets, []
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        self.cut()
