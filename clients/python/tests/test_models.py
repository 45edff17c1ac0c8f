"""Parsing the API's values."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from rota import Gone, LeaseLost
from rota._errors import error_from_response
from rota._sse import SseDecoder
from rota._times import parse_time


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-24T16:23:00.640622565Z", datetime(2026, 11, 24, 16, 23, 0, 640622, timezone.utc)),
        ("2026-11-24T10:00:05.5Z", datetime(2026, 11, 24, 10, 0, 5, 500000, timezone.utc)),
        ("2026-11-24T10:00:05Z", datetime(2026, 11, 24, 10, 0, 5, tzinfo=timezone.utc)),
        ("2026-11-24T12:00:05.25+02:00", datetime(2026, 11, 24, 10, 0, 5, 250000, timezone.utc)),
    ],
)
def test_parses_the_api_s_times_as_aware_utc(text: str, expected: datetime) -> None:
    parsed = parse_time(text)
    assert parsed == expected
    assert parsed is not None and parsed.utcoffset() == timedelta(0)


def test_an_absent_time_is_none_and_a_bad_one_an_error() -> None:
    assert parse_time(None) is None
    with pytest.raises(ValueError):
        parse_time("yesterday")


def test_decodes_server_sent_events_with_comments_and_split_data() -> None:
    decoder = SseDecoder()
    lines = [
        ": keep-alive",
        'data:{"type": "lease.granted",',
        'data: "agentId": "a1"}',
        "event:lease.granted",
        "id:42.1",
        "",
    ]
    events = [e for e in (decoder.feed(line) for line in lines) if e is not None]
    assert len(events) == 1
    assert events[0].id == "42.1"
    assert events[0].type == "lease.granted"
    assert events[0].agent_id == "a1"
    assert decoder.feed("") is None


def test_a_gone_answer_is_gone_with_the_oldest_retained_id() -> None:
    gone = error_from_response(
        410, b'{"error": "gone", "message": "removed", "oldestRetainedId": "1042"}', None
    )
    assert isinstance(gone, Gone)
    assert gone.oldest_retained_id == "1042"
    lost = error_from_response(410, b'{"error": "lease_lost", "message": "expired"}', None)
    assert isinstance(lost, LeaseLost)
    assert not isinstance(lost, Gone)
