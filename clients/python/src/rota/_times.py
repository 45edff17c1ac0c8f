"""The API's times: ISO-8601 UTC strings, read as aware datetimes."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

_ISO_TIME = re.compile(
    r"(?P<base>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(?P<fraction>\d+))?"
    r"(?P<zone>Z|z|[+-]\d{2}:\d{2})?"
)


def parse_time(value: Any) -> datetime | None:
    """An ISO-8601 time of the API as an aware UTC datetime; None when absent."""
    if not isinstance(value, str):
        return None
    # Python 3.10's fromisoformat takes neither "Z" nor more than 6 fractional digits.
    match = _ISO_TIME.fullmatch(value.strip())
    if match is None:
        raise ValueError(f"not an ISO-8601 time: {value!r}")
    fraction = (match["fraction"] or "")[:6].ljust(6, "0")
    zone = "+00:00" if match["zone"] in (None, "Z", "z") else match["zone"]
    parsed = datetime.fromisoformat(f"{match['base']}.{fraction}{zone}")
    return parsed.astimezone(timezone.utc)
