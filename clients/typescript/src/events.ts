import { RotaError, Unavailable, errorFromResponse, parseRetryAfter } from "./errors.js";
import { sleep, type Transport } from "./transport.js";
import type { EventData } from "./types.js";

/** One Server-Sent Event: its SSE `id` (the cursor to resume after), `type` and JSON `data`. */
export interface RotaEvent {
  id: string | undefined;
  type: string;
  data: EventData;
}

export interface EventStreamOptions {
  /** Only this agent's events. */
  agentId?: string;
  /** Only these event types. */
  types?: Iterable<string>;
  /** Resume after this event id (sent as `Last-Event-ID`). */
  since?: string;
  /** Reconnect when nothing, not even the node's keep-alive comment, arrived for this long. */
  readTimeoutMs?: number;
  signal?: AbortSignal;
}

const MAX_BACKOFF_MS = 10_000;

/**
 * The node's event stream, iterated with `for await`. A dropped connection, an idle one past
 * `readTimeoutMs`, or a 503 (too many streams; after its `Retry-After`) is reopened with
 * `Last-Event-ID` set to the last event given, so the iteration goes on without gaps or duplicates
 * as far as the node's retention allows. Any other error answer (401, 403, 400) ends it by being
 * thrown. `close()`, the options' `signal` or leaving the loop ends it quietly.
 */
export class EventStream implements AsyncIterable<RotaEvent> {
  /** The id of the last event given: where a new stream would resume. */
  lastEventId: string | undefined;
  private readonly closer = new AbortController();
  private readonly signal: AbortSignal;

  constructor(
    private readonly transport: Transport,
    private readonly options: EventStreamOptions,
  ) {
    this.lastEventId = options.since;
    this.signal = options.signal ? AbortSignal.any([options.signal, this.closer.signal]) : this.closer.signal;
  }

  close(): void {
    this.closer.abort(new Error("event stream closed"));
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RotaEvent> {
    let backoff = 500;
    try {
      while (!this.signal.aborted) {
        const connection = new AbortController();
        const signal = AbortSignal.any([this.signal, connection.signal]);
        let response: Response;
        try {
          response = await this.open(signal);
        } catch (error) {
          if (this.signal.aborted) {
            return;
          }
          const retryable = !(error instanceof RotaError) || error.status === 0 || error instanceof Unavailable;
          if (!retryable) {
            throw error;
          }
          const wait = error instanceof RotaError && error.retryAfter !== undefined ? error.retryAfter * 1000 : backoff;
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
          if (!(await this.pause(wait))) {
            return;
          }
          continue;
        }
        const idle = new IdleTimer(this.options.readTimeoutMs ?? 60_000, () => connection.abort(new Error("idle")));
        // close() while the consumer holds an event never resumes this generator: stop the watch then.
        signal.addEventListener("abort", () => idle.stop(), { once: true });
        try {
          for await (const event of decode(response, idle)) {
            backoff = 500;
            if (event.id !== undefined) {
              this.lastEventId = event.id;
            }
            yield event;
          }
        } catch {
          // dropped or idle: reopened below unless closed
        } finally {
          idle.stop();
          connection.abort(new Error("reconnecting"));
        }
        if (this.signal.aborted || !(await this.pause(backoff))) {
          return;
        }
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    } finally {
      this.close();
    }
  }

  private async open(signal: AbortSignal): Promise<Response> {
    const types = this.options.types ? [...this.options.types].join(",") : undefined;
    const call = {
      method: "GET" as const,
      path: "v1/events",
      safe: true,
      query: { agentId: this.options.agentId, types: types || undefined },
      signal,
    };
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (this.lastEventId !== undefined) {
      headers["Last-Event-ID"] = this.lastEventId;
    }
    // The timeout covers the answer's headers only: the stream itself is watched by IdleTimer.
    const response = await this.transport.fetch(call, this.transport.timeoutMs, headers, true);
    if (response.status >= 300) {
      throw errorFromResponse(response.status, await response.text(), parseRetryAfter(response.headers.get("Retry-After")));
    }
    return response;
  }

  /** Waits; false when the stream was closed meanwhile. */
  private async pause(ms: number): Promise<boolean> {
    try {
      await sleep(ms, this.signal);
      return true;
    } catch {
      return false;
    }
  }
}

class IdleTimer {
  private timer: ReturnType<typeof setTimeout>;

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {
    this.timer = setTimeout(onIdle, ms);
    this.timer.unref?.();
  }

  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onIdle, this.ms);
    this.timer.unref?.();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** The events of one response body (the SSE subset Rota sends: data, event, id, comments). */
async function* decode(response: Response, idle: IdleTimer): AsyncGenerator<RotaEvent> {
  if (!response.body) {
    return;
  }
  const decoder = new SseDecoder();
  const text = new TextDecoder();
  let buffered = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    idle.touch();
    buffered += text.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + (buffered.startsWith("\r\n", newline) ? 2 : 1));
      const event = decoder.feed(line);
      if (event) {
        yield event;
      }
    }
  }
}

/** Feeds lines, returns an event at each blank line that ends one. */
export class SseDecoder {
  private data: string[] = [];
  private type: string | undefined;
  private id: string | undefined;

  feed(line: string): RotaEvent | undefined {
    if (line === "") {
      return this.dispatch();
    }
    if (line.startsWith(":")) {
      return undefined; // keep-alive comment
    }
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) {
      value = value.slice(1);
    }
    if (name === "data") {
      this.data.push(value);
    } else if (name === "event") {
      this.type = value;
    } else if (name === "id") {
      this.id = value;
    }
    return undefined;
  }

  private dispatch(): RotaEvent | undefined {
    const data = this.data;
    const type = this.type;
    const id = this.id;
    this.data = [];
    this.type = undefined;
    this.id = undefined;
    if (data.length === 0) {
      return undefined;
    }
    const text = data.join("\n");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { data: text };
    }
    const object = (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : { data: parsed }) as EventData;
    return { id, type: type ?? (typeof object.type === "string" ? object.type : "message"), data: object };
  }
}
