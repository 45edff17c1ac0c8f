/**
 * The API's errors as classes, one per error code of its contract (the OpenAPI document a node
 * serves at `/openapi.yaml`). Every error carries the HTTP `status` (0 when no answer arrived), the
 * API's `code` (`invalid`, `not_found`, ...), its `message`, `retryAfter` in seconds when the
 * server sent `Retry-After` (409 `turn_in_progress`, 429 and 503), and `reason` where the code alone
 * does not say why (410 after an interrupt: `interrupted`).
 */
export class RotaError extends Error {
  override name = "RotaError";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter: number | undefined = undefined,
    options?: ErrorOptions & { reason?: string },
  ) {
    super(status ? `${status} ${code}: ${message}` : message, options);
    this.apiMessage = message;
    this.reason = options?.reason;
  }

  /** The server's sentence, without the status and code that `message` starts with. */
  readonly apiMessage: string;
  /** Why, in one word, where the code alone does not say (410 after an interrupt: `interrupted`). */
  readonly reason: string | undefined;
}

/** 400 `invalid`: the message names the field. */
export class InvalidRequest extends RotaError {
  override name = "InvalidRequest";
}
/** 401 `unauthenticated`: no token, or an unknown one. */
export class Unauthenticated extends RotaError {
  override name = "Unauthenticated";
}
/** 403 `forbidden`: the token lacks the role, or the request is cross-site. */
export class Forbidden extends RotaError {
  override name = "Forbidden";
}
/** 404 `not_found`: unknown agent, lease or dead letter. */
export class NotFound extends RotaError {
  override name = "NotFound";
}
/** 409 `conflict`, e.g. deleting an agent that holds a lease. */
export class Conflict extends RotaError {
  override name = "Conflict";
}
/** 409 `lease_not_held`: the lease was granted to another runner id. */
export class LeaseNotHeld extends Conflict {
  override name = "LeaseNotHeld";
}
/**
 * 409 `turn_in_progress`: the agent (or the notification) refuses new input while a turn runs
 * (`newInput: reject`); nothing was stored. Send it again after `retryAfter`.
 */
export class TurnInProgress extends Conflict {
  override name = "TurnInProgress";
}
/**
 * 410 `lease_lost`: the lease expired or was superseded; stop and report nothing more.
 * `interrupted` is true when new input ended it (`newInput: interrupt`).
 */
export class LeaseLost extends RotaError {
  override name = "LeaseLost";

  get interrupted(): boolean {
    return this.reason === "interrupted";
  }
}
/**
 * 410 `gone`: the journal's retention removed the events after the position asked for (`since` or
 * `Last-Event-ID`). `oldestRetainedId` is the oldest event id still held: resume with `since` one
 * below it (what was removed is not served again), or without a position to start now.
 */
export class Gone extends RotaError {
  override name = "Gone";
  oldestRetainedId: string | undefined = undefined;
}
/** 413, 414 or 431 `too_large`: body, URI or headers over the server's limits. */
export class TooLarge extends RotaError {
  override name = "TooLarge";
}
/** 429 `inbox_full`: the agent's inbox is at `maxInboxDepth`; see `retryAfter`. */
export class InboxFull extends RotaError {
  override name = "InboxFull";
}
/** 503 `unavailable`: store or cluster not ready; see `retryAfter`. */
export class Unavailable extends RotaError {
  override name = "Unavailable";
}

/**
 * No answer: the connection failed or timed out. `requestSent` is false when the request provably
 * never reached the server (the connection could not be opened), so repeating it cannot duplicate
 * anything.
 */
export class ConnectionFailed extends RotaError {
  override name = "ConnectionFailed";

  constructor(
    message: string,
    readonly requestSent: boolean,
    options?: ErrorOptions,
  ) {
    super(0, "connection", message, undefined, options);
  }
}

const BY_STATUS: Record<number, typeof RotaError> = {
  400: InvalidRequest,
  401: Unauthenticated,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  410: LeaseLost,
  413: TooLarge,
  414: TooLarge,
  431: TooLarge,
  429: InboxFull,
  503: Unavailable,
};

/** Codes whose class is narrower than their status's. */
const BY_CODE: Record<string, typeof RotaError> = {
  lease_not_held: LeaseNotHeld,
  turn_in_progress: TurnInProgress,
  gone: Gone,
};

/** The error for an error answer; a body that is not the API's shape still gives one. */
export function errorFromResponse(status: number, body: string, retryAfter: number | undefined): RotaError {
  let code = `http_${status}`;
  let message = body.trim();
  let reason: string | undefined;
  let oldestRetainedId: string | undefined;
  try {
    const parsed: unknown = body ? JSON.parse(body) : undefined;
    if (isRecord(parsed) && typeof parsed.error === "string") {
      code = parsed.error;
      if (typeof parsed.message === "string" && parsed.message) {
        message = parsed.message;
      }
      if (typeof parsed.reason === "string") {
        reason = parsed.reason;
      }
      if (typeof parsed.oldestRetainedId === "string") {
        oldestRetainedId = parsed.oldestRetainedId;
      }
    }
  } catch {
    // not JSON: the text is the message
  }
  if (!message) {
    message = `HTTP ${status}`;
  }
  const type = BY_CODE[code] ?? BY_STATUS[status] ?? RotaError;
  const error = new type(status, code, message, retryAfter, reason === undefined ? undefined : { reason });
  if (error instanceof Gone) {
    error.oldestRetainedId = oldestRetainedId;
  }
  return error;
}

/** `Retry-After` in seconds; the HTTP-date form is not used by Rota and reads as absent. */
export function parseRetryAfter(header: string | null): number | undefined {
  if (header === null) {
    return undefined;
  }
  const seconds = Number(header.trim());
  return Number.isFinite(seconds) && header.trim() !== "" ? Math.max(0, seconds) : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
