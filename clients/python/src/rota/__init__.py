"""Rota's Python SDK: a client for producers and admins (:class:`Rota`, :class:`AsyncRota`) and
the runner loop for agents' turns (:class:`Runner`, :class:`AsyncRunner`)."""

from ._context import Cancelled, CancelReason, Context
from ._core import RetryPolicy
from ._errors import (
    Conflict,
    ConnectionFailed,
    Forbidden,
    InboxFull,
    InvalidRequest,
    LeaseLost,
    LeaseNotHeld,
    NotFound,
    RotaError,
    TooLarge,
    TurnInProgress,
    Unauthenticated,
    Unavailable,
)
from ._models import (
    Activation,
    ClaimResult,
    Degraded,
    Event,
    JsonObject,
    Notification,
    NotifyResult,
    Outcome,
    RunnerHealth,
    RunnerMode,
    RunnerStats,
    RunnerView,
    ScheduleFire,
)
from .aio import AsyncEventStream, AsyncRota
from .client import EventStream, Rota
from .runner import AsyncRunner, Handler, Runner, RunnerListener

__all__ = [
    "Activation",
    "AsyncEventStream",
    "AsyncRota",
    "AsyncRunner",
    "CancelReason",
    "Cancelled",
    "ClaimResult",
    "Conflict",
    "ConnectionFailed",
    "Context",
    "Degraded",
    "Event",
    "EventStream",
    "Forbidden",
    "Handler",
    "InboxFull",
    "InvalidRequest",
    "JsonObject",
    "LeaseLost",
    "LeaseNotHeld",
    "NotFound",
    "Notification",
    "NotifyResult",
    "Outcome",
    "RetryPolicy",
    "Rota",
    "RotaError",
    "Runner",
    "RunnerHealth",
    "RunnerListener",
    "RunnerMode",
    "RunnerStats",
    "RunnerView",
    "ScheduleFire",
    "TooLarge",
    "TurnInProgress",
    "Unauthenticated",
    "Unavailable",
]
