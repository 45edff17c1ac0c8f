import {
  ConnectionFailed,
  InboxFull,
  RotaError,
  Unavailable,
  errorFromResponse,
  parseRetryAfter,
} from "./errors.js";

/**
 * How failed calls are repeated. A call that cannot duplicate anything (a read, a registration, a
 * pause, a deletion, a notification with a dedupe key) is repeated on 503 `unavailable`, 429
 * `inbox_full` and connection failures, waiting the server's `Retry-After` (at most
 * `maxRetryAfterMs`) or a growing, jittered back-off from `initialBackoffMs` up to `maxBackoffMs`.
 * Any other call is repeated only when no connection could be opened. `attempts` counts the first
 * try; 1 turns retries off.
 */
export interface RetryPolicy {
  attempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 5,
  initialBackoffMs: 200,
  maxBackoffMs: 5_000,
  maxRetryAfterMs: 30_000,
};

/** One request: `safe` when repeating it cannot duplicate anything. */
export interface Call {
  method: "GET" | "PUT" | "POST" | "DELETE";
  path: string;
  safe: boolean;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
}

export interface Answer {
  status: number;
  body: unknown;
}

export const USER_AGENT = "rota-client-typescript/0.1.0";

/** Codes of a connection that could not be opened: the request never reached the server. */
const NOT_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Sends calls with the global `fetch`, turns error answers into typed errors, retries safe ones. */
export class Transport {
  constructor(
    readonly baseUrl: string,
    readonly token: string | undefined,
    readonly timeoutMs: number,
    readonly retry: RetryPolicy,
  ) {}

  url(path: string, query?: Record<string, string | number | undefined>): string {
    const url = new URL(path, this.baseUrl);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) {
        url.searchParams.set(key, String(value));
      }
    }
    return url.toString();
  }

  headers(extra?: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json", "User-Agent": USER_AGENT, ...extra };
    if (this.token) {
      headers.Authorization = `Bearer ${this.token}`;
    }
    return headers;
  }

  /** The call's answer (JSON, or undefined for an empty body), or its typed error. */
  async send(call: Call): Promise<Answer> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.once(call);
      } catch (error) {
        const wait = error instanceof RotaError ? this.waitBeforeRetry(call, error, tries) : undefined;
        if (wait === undefined) {
          throw error;
        }
        await sleep(wait, call.signal);
      }
    }
  }

  /** Milliseconds to wait before try `tries + 1`, or undefined when the error is final. */
  waitBeforeRetry(call: Call, error: RotaError, tries: number): number | undefined {
    if (tries >= this.retry.attempts) {
      return undefined;
    }
    if (error instanceof Unavailable || error instanceof InboxFull) {
      if (!call.safe) {
        return undefined;
      }
      if (error.retryAfter !== undefined) {
        return Math.min(error.retryAfter * 1000, this.retry.maxRetryAfterMs);
      }
    } else if (error instanceof ConnectionFailed) {
      if (error.requestSent && !call.safe) {
        return undefined;
      }
    } else {
      return undefined;
    }
    const backoff = Math.min(this.retry.maxBackoffMs, this.retry.initialBackoffMs * 2 ** (tries - 1));
    return backoff * (0.5 + Math.random() / 2);
  }

  private async once(call: Call): Promise<Answer> {
    const response = await this.fetch(call, call.timeoutMs ?? this.timeoutMs);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (call.signal?.aborted) {
        throw call.signal.reason;
      }
      throw connectionFailed(call, error, false);
    }
    if (response.status >= 300) {
      throw errorFromResponse(response.status, text, parseRetryAfter(response.headers.get("Retry-After")));
    }
    // A long-polled claim's body starts with spaces: JSON allows whitespace before a value.
    return { status: response.status, body: text.trim() ? (JSON.parse(text) as unknown) : undefined };
  }

  /**
   * The response whose headers arrived within `timeoutMs`; its body is the caller's to read. The
   * timeout also ends the reading of the body, unless `streaming` (an event stream, watched for
   * idleness by its reader instead).
   */
  async fetch(call: Call, timeoutMs: number, extraHeaders?: Record<string, string>, streaming = false): Promise<Response> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), Math.max(1, timeoutMs));
    timer.unref?.();
    const signal = call.signal ? AbortSignal.any([call.signal, timeout.signal]) : timeout.signal;
    const hasBody = call.body !== undefined;
    try {
      return await fetch(this.url(call.path, call.query), {
        method: call.method,
        headers: this.headers(hasBody ? { "Content-Type": "application/json", ...extraHeaders } : extraHeaders),
        body: hasBody ? JSON.stringify(call.body) : null,
        signal,
      });
    } catch (error) {
      if (call.signal?.aborted) {
        throw call.signal.reason;
      }
      throw connectionFailed(call, error, timeout.signal.aborted);
    } finally {
      if (streaming) {
        clearTimeout(timer);
      }
    }
  }
}

function connectionFailed(call: Call, error: unknown, timedOut: boolean): ConnectionFailed {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const code = cause && "code" in cause ? String(cause.code) : undefined;
  const sent = code === undefined || !NOT_SENT.has(code);
  const what = timedOut ? "timed out" : sent ? "got no answer" : "cannot connect";
  const detail = cause ? `${cause.message}` : String(error);
  return new ConnectionFailed(`${call.method} ${call.path} ${what}: ${detail}`, sent, { cause: error });
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener("abort", aborted, { once: true });
    function done(): void {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted(): void {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    }
  });
}

/** A path segment, percent-encoded (ids may hold any character the API allows). */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
