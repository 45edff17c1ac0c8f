"""Server-Sent Events decoding (the subset Rota sends: ``data``, ``event``, ``id``, comments)."""

from __future__ import annotations

import json

from ._models import Event


class SseDecoder:
    """Feeds lines, returns an :class:`Event` at each blank line that ends one."""

    def __init__(self) -> None:
        self._data: list[str] = []
        self._type: str | None = None
        self._id: str | None = None

    def feed(self, line: str) -> Event | None:
        line = line.rstrip("\r\n")
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None  # keep-alive comment
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._type = value
        elif name == "id":
            self._id = value
        return None

    def _dispatch(self) -> Event | None:
        if not self._data:
            self._type = self._id = None
            return None
        text = "\n".join(self._data)
        event_id, event_type = self._id, self._type
        self._data, self._type, self._id = [], None, None
        try:
            data = json.loads(text)
        except ValueError:
            data = {"data": text}
        if not isinstance(data, dict):
            data = {"data": data}
        kind = event_type or str(data.get("type", "message"))
        return Event(id=event_id, type=kind, data=data)
