import type { CallAnswer, SendItem } from "./calls.js";
import { InvalidRequest } from "./errors.js";
import { EventStream, type EventStreamOptions } from "./events.js";
import type { Outcome } from "./outcome.js";
import { DEFAULT_RETRY, Transport, segment, sleep, type Call, type RetryPolicy } from "./transport.js";
import type {
  ActivationCompleted,
  ActivationFailed,
  AdminStats,
  AgentHistory,
  AgentList,
  AgentView,
  ClaimResponse,
  DeadLetter,
  Explanation,
  FailAction,
  HistoryEvent,
  InputAnswer,
  LeaseExtended,
  NewInputPolicy,
  NotificationAccepted,
  TenantList,
  TenantRequest,
  TenantView,
  Pool,
  PoolList,
  Redriven,
  RegisterAgentRequest,
  RunnerHealthState,
  RunnerList,
  RunnerMode,
  RunnerView,
} from "./types.js";

export interface RotaOptions {
  /** `Authorization: Bearer` token; without one the node must run without tokens (loopback). */
  token?: string;
  /** Per-request timeout in milliseconds (a claim adds its `waitSeconds`); default 30 s. */
  timeoutMs?: number;
  /** How failed calls are repeated; see {@link RetryPolicy}. */
  retry?: Partial<RetryPolicy>;
  /**
   * The tenant every agent call (`/v1/agents...`) works in, sent as `?tenant=`; no other call
   * carries it. Without one: the token's tenant when it is scoped to exactly one, else `default`.
   */
  tenant?: string;
}

/** Options every call takes: an `AbortSignal` that abandons it. */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface ClaimOptions extends CallOptions {
  mode?: RunnerMode;
  capabilities?: Iterable<string>;
  /** Long poll: 0 to 60 seconds; default 20. */
  waitSeconds?: number;
  /** 5 to 7200 seconds; default the node's. */
  leaseSeconds?: number;
}

/** The claim a report carries (`next`): what {@link ClaimOptions} says, without the signal. */
export type NextClaimOptions = Omit<ClaimOptions, "signal">;

export interface FailOptions extends CallOptions {
  action?: FailAction;
  error?: string;
  /** Required with `snooze` (0 to 86400), refused with any other action. */
  snoozeSeconds?: number;
  /** As {@link CompleteOptions.inputSeen}: those it names fail with the turn, any other returns unread, no attempt counted. */
  inputSeen?: readonly string[];
}

export interface NotifyOptions extends CallOptions {
  /** Makes retries safe: the same key while the first is unread (or within the node's dedupe window) is a duplicate. */
  dedupeKey?: string;
  /** What this notification does to a turn running now, over the agent's own `newInput`. */
  newInput?: NewInputPolicy;
}

/** The options of a completion: the turn's sends, which go out with it (if and only if it is accepted). */
export interface CompleteOptions extends CallOptions {
  sends?: readonly SendItem[];
  /**
   * Calls (carried by the turn, or owed from an earlier one) this completion leaves owed: a later
   * completion answers them (docs/api.md, "Deferred answers").
   */
  defer?: readonly string[];
  /**
   * The runner's cursor on new input (sent only when given, an empty list too): the ids of the
   * notifications steered into the lease that the turn took. The report settles those; any other
   * steered into the lease returns to the inbox, unread, for the next turn. Without it every
   * steered notification is the turn's.
   */
  inputSeen?: readonly string[];
}

/** A report's options: the turn's sends go out with a completion only, `inputSeen` with either. */
export type ReportOptions = CompleteOptions;

export interface StartCallOptions extends CallOptions {
  /** The call's own timeout at the node: 1 to 86,400 seconds (the node's default is an hour). */
  timeoutSeconds?: number;
  /** As {@link NotifyOptions.dedupeKey}: a retry after a lost answer gets the first call's id. */
  dedupeKey?: string;
}

export interface ProducerCallOptions extends StartCallOptions {
  /** How long {@link Rota.call} waits for the answer, in all (default 60 s); then it answers `pending`. */
  waitMs?: number;
}

export interface GetCallOptions extends CallOptions {
  /** Long poll: 0 to 60 seconds; default 0. */
  waitSeconds?: number;
}

/** The node's answer to a notification sent as a call. */
export type CallAccepted = NotificationAccepted & { callId: string };

export interface AwaitInputOptions extends CallOptions {
  /** Long poll: 0 to 60 seconds; default 20. */
  waitSeconds?: number;
}

export interface HealthOptions extends CallOptions {
  reason?: string;
  /** Required when degraded: 1 s to the node's `rota.runner-health.max-report-seconds`. */
  seconds?: number;
}

/**
 * A client of one Rota node (or a load balancer in front of several) for producers, admins and
 * runners. Every method maps to one route of the API and returns its JSON answer, typed from the
 * node's OpenAPI document; an error answer is thrown as the {@link RotaError} subclass of its code.
 *
 * Calls that cannot duplicate anything are retried on 503, 429 and connection failures (see
 * {@link RetryPolicy}): reads, `PUT`s, deletions, pausing, and notifications, which always carry a
 * dedupe key (one is generated when the caller gives none) so that a retry after a lost answer is
 * answered `duplicate: true` instead of storing the notification twice.
 */
export class Rota {
  readonly baseUrl: string;
  /** The tenant of every agent call, or undefined (see {@link RotaOptions.tenant}). */
  readonly tenant: string | undefined;
  /** @internal */
  readonly transport: Transport;
  /** A node from before the runner's cursor refused `inputSeen`: reports go without it. */
  private inputSeenRefused = false;

  constructor(baseUrl: string, options: RotaOptions = {}) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
    this.tenant = options.tenant;
    this.transport = new Transport(
      this.baseUrl,
      options.token,
      options.timeoutMs ?? 30_000,
      { ...DEFAULT_RETRY, ...options.retry },
    );
  }

  // ---- agents (role producer) ----

  /** Registers the agent, or updates the fields given; `created` tells which (201 or 200). */
  async registerAgent(
    agentId: string,
    spec: RegisterAgentRequest = {},
    options: CallOptions = {},
  ): Promise<{ agent: AgentView; created: boolean }> {
    const answer = await this.send({ method: "PUT", path: agentPath(agentId), safe: true, body: spec, signal: options.signal });
    return { agent: answer.body as AgentView, created: answer.status === 201 };
  }

  getAgent(agentId: string, options: CallOptions = {}): Promise<AgentView> {
    return this.json({ method: "GET", path: agentPath(agentId), safe: true, signal: options.signal });
  }

  /** One page of agents; pass the answer's `next` as `after` for the following one. */
  listAgents(
    query: { order?: "stalest" | "inbox"; limit?: number; after?: string } = {},
    options: CallOptions = {},
  ): Promise<AgentList> {
    return this.json({ method: "GET", path: "v1/agents", safe: true, query: { order: query.order, limit: query.limit, after: query.after }, signal: options.signal });
  }

  /** Every agent, page after page. */
  async *agents(query: { order?: "stalest" | "inbox"; pageSize?: number } = {}, options: CallOptions = {}): AsyncGenerator<AgentView> {
    let after: string | undefined;
    do {
      const page = await this.listAgents({ order: query.order, limit: query.pageSize, after }, options);
      yield* page.agents;
      after = page.next ?? undefined;
    } while (after !== undefined);
  }

  /** Deregisters the agent; 409 {@link Conflict} while it holds a lease. */
  async deleteAgent(agentId: string, options: CallOptions = {}): Promise<void> {
    await this.send({ method: "DELETE", path: agentPath(agentId), safe: true, signal: options.signal });
  }

  pauseAgent(agentId: string, options: CallOptions = {}): Promise<AgentView> {
    return this.json({ method: "POST", path: `${agentPath(agentId)}/pause`, safe: true, signal: options.signal });
  }

  resumeAgent(agentId: string, options: CallOptions = {}): Promise<AgentView> {
    return this.json({ method: "POST", path: `${agentPath(agentId)}/resume`, safe: true, signal: options.signal });
  }

  /** The agent's recent events, newest first. */
  async history(agentId: string, query: { limit?: number } = {}, options: CallOptions = {}): Promise<HistoryEvent[]> {
    const page = await this.json<AgentHistory>({ method: "GET", path: `${agentPath(agentId)}/history`, safe: true, query: { limit: query.limit }, signal: options.signal });
    return page.events;
  }

  /** Why the agent is or is not being picked. */
  explain(agentId: string, options: CallOptions = {}): Promise<Explanation> {
    return this.json({ method: "GET", path: `${agentPath(agentId)}/explain`, safe: true, signal: options.signal });
  }

  // ---- notifications (role producer) ----

  /**
   * Puts a notification into the agent's inbox. Without a `dedupeKey` one is generated, so that
   * the retries this client makes (503, lost answers) never store it twice; give your own to make
   * your retries, or another producer's, safe too.
   *
   * While the agent holds a lease its `newInput` (or the notification's own) decides what the
   * notification does (docs/api.md, "New input during a turn"): the answer says `steered: true`
   * when it joined the running turn, `interrupted: true` when it ended it, and a rejecting agent
   * throws {@link TurnInProgress} (with `retryAfter`), storing nothing.
   */
  notify(
    agentId: string,
    type: string,
    payload?: unknown,
    options: NotifyOptions = {},
  ): Promise<NotificationAccepted> {
    const body: Record<string, unknown> = { type, dedupeKey: options.dedupeKey ?? generatedDedupeKey() };
    if (payload !== undefined) {
      body.payload = payload;
    }
    if (options.newInput !== undefined) {
      body.newInput = options.newInput;
    }
    return this.json({ method: "POST", path: `${agentPath(agentId)}/notifications`, safe: true, body, signal: options.signal });
  }

  // ---- calls (role producer) ----

  /**
   * Calls an agent and waits for its answer: sends the notification as a call (`"call":
   * {"timeoutSeconds"}`), then long-polls `GET /v1/calls/{callId}` until the call is answered,
   * failed or timed out, or until `waitMs` has passed; the answer is then `pending` (ask again with
   * {@link getCall}). An answered call's `result` is the agent's turn's completion result.
   */
  async call(agentId: string, type: string, payload?: unknown, options: ProducerCallOptions = {}): Promise<CallAnswer> {
    const deadline = performance.now() + Math.max(0, options.waitMs ?? 60_000);
    const { callId } = await this.startCall(agentId, type, payload, options);
    for (;;) {
      const left = deadline - performance.now();
      const answer = await this.getCall(callId, { waitSeconds: Math.floor(Math.max(0, Math.min(60_000, left)) / 1000), signal: options.signal });
      if (answer.status !== "pending" || performance.now() >= deadline) {
        return answer;
      }
      if (left < 1_000) {
        // Under a second left: the node answers at once, so wait here rather than spin.
        await sleep(Math.min(200, Math.max(0, left)), options.signal);
      }
    }
  }

  /** Sends a notification as a call without waiting; the answer's `callId` is what {@link getCall} takes. */
  async startCall(agentId: string, type: string, payload?: unknown, options: StartCallOptions = {}): Promise<CallAccepted> {
    const body: Record<string, unknown> = { type, dedupeKey: options.dedupeKey ?? generatedDedupeKey() };
    if (payload !== undefined) {
      body.payload = payload;
    }
    body.call = options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds };
    const accepted = await this.json<NotificationAccepted & { callId?: string }>({ method: "POST", path: `${agentPath(agentId)}/notifications`, safe: true, body, signal: options.signal });
    if (typeof accepted.callId !== "string") {
      throw new TypeError("the node answered a call without a callId: it predates calls");
    }
    return accepted as CallAccepted;
  }

  /** Where a call stands, waiting up to `waitSeconds` (0 to 60) at the node for its answer; {@link NotFound} for an unknown call or one of another tenant. */
  getCall(callId: string, options: GetCallOptions = {}): Promise<CallAnswer> {
    const waitSeconds = options.waitSeconds ?? 0;
    if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > 60) {
      throw new RangeError(`waitSeconds must be 0 to 60: ${waitSeconds}`);
    }
    return this.json({
      method: "GET",
      path: `v1/calls/${segment(callId)}`,
      safe: true,
      query: { waitSeconds },
      timeoutMs: waitSeconds * 1000 + this.transport.timeoutMs,
      signal: options.signal,
    });
  }

  // ---- admin (role admin) ----

  stats(query: { targetStalenessSeconds?: number } = {}, options: CallOptions = {}): Promise<AdminStats> {
    return this.json({ method: "GET", path: "admin/stats", safe: true, query: { targetStalenessSeconds: query.targetStalenessSeconds }, signal: options.signal });
  }

  async pools(options: CallOptions = {}): Promise<Pool[]> {
    return (await this.json<PoolList>({ method: "GET", path: "admin/pools", safe: true, signal: options.signal })).pools;
  }

  async runners(options: CallOptions = {}): Promise<RunnerView[]> {
    return (await this.json<RunnerList>({ method: "GET", path: "admin/runners", safe: true, signal: options.signal })).runners;
  }

  /** No new work for the runner until {@link restoreRunner}; its current lease runs on. */
  drainRunner(runnerId: string, options: CallOptions = {}): Promise<RunnerHealthState> {
    return this.json({ method: "POST", path: `admin/runners/${segment(runnerId)}/drain`, safe: true, signal: options.signal });
  }

  /** Clears the runner's degradation and drain. */
  restoreRunner(runnerId: string, options: CallOptions = {}): Promise<RunnerHealthState> {
    return this.json({ method: "POST", path: `admin/runners/${segment(runnerId)}/restore`, safe: true, signal: options.signal });
  }

  /** Pauses the whole system: running activations finish, claims answer `paused`. */
  async pause(options: CallOptions = {}): Promise<boolean> {
    return (await this.json<{ paused: boolean }>({ method: "POST", path: "admin/pause", safe: true, body: {}, signal: options.signal })).paused;
  }

  /** Ends a system pause; answers whether the system is still paused (false). */
  async resume(options: CallOptions = {}): Promise<boolean> {
    return (await this.json<{ paused: boolean }>({ method: "POST", path: "admin/resume", safe: true, body: {}, signal: options.signal })).paused;
  }

  /** Every tenant with its setting and figures, by name. */
  async tenants(options: CallOptions = {}): Promise<TenantView[]> {
    return (await this.json<TenantList>({ method: "GET", path: "admin/tenants", safe: true, signal: options.signal })).tenants;
  }

  /** One tenant; {@link NotFound} for an unknown one. */
  getTenant(tenant: string, options: CallOptions = {}): Promise<TenantView> {
    return this.json({ method: "GET", path: tenantPath(tenant), safe: true, signal: options.signal });
  }

  /**
   * Creates the tenant or changes its weight and caps (omitted: weight 1, no caps); `created`
   * tells which (201 or 200).
   */
  async setTenant(tenant: string, spec: Partial<TenantRequest> = {}, options: CallOptions = {}): Promise<{ tenant: TenantView; created: boolean }> {
    const answer = await this.send({ method: "PUT", path: tenantPath(tenant), safe: true, body: spec, signal: options.signal });
    return { tenant: answer.body as TenantView, created: answer.status === 201 };
  }

  /** Deletes the tenant; {@link Conflict} while it has agents, for `default` and for a configured one. */
  async deleteTenant(tenant: string, options: CallOptions = {}): Promise<void> {
    await this.send({ method: "DELETE", path: tenantPath(tenant), safe: true, signal: options.signal });
  }

  /** Dead letters, newest first. */
  async deadLetters(query: { agentId?: string; limit?: number } = {}, options: CallOptions = {}): Promise<DeadLetter[]> {
    const page = await this.json<{ deadLetters: DeadLetter[] }>({ method: "GET", path: "admin/dead-letters", safe: true, query: { agentId: query.agentId, limit: query.limit }, signal: options.signal });
    return page.deadLetters;
  }

  /** Puts the dead letter back into its agent's inbox with fresh attempts (not retried: a second
   * redrive of a lost answer would find the letter gone). */
  redrive(deadLetterId: string, options: CallOptions = {}): Promise<Redriven> {
    return this.json({ method: "POST", path: `admin/dead-letters/${segment(deadLetterId)}/redrive`, safe: false, body: {}, signal: options.signal });
  }

  /** Removes the dead letter for good. */
  async discardDeadLetter(deadLetterId: string, options: CallOptions = {}): Promise<void> {
    await this.transport.send({ method: "DELETE", path: `admin/dead-letters/${segment(deadLetterId)}`, safe: true, signal: options.signal });
  }

  /**
   * The event stream (role admin) from now, or after the event `since`. Iterate it with
   * `for await`; it reconnects by itself after a dropped connection, resuming after the last event
   * it gave (`Last-Event-ID`). `close()`, the `signal`, or leaving the loop ends it.
   */
  events(options: EventStreamOptions = {}): EventStream {
    return new EventStream(this.transport, options);
  }

  // ---- runners (role runner); Runner uses these ----

  /** Asks for work, waiting up to `waitSeconds` (long poll). */
  claim(runnerId: string, options: ClaimOptions = {}): Promise<ClaimResponse> {
    const waitSeconds = options.waitSeconds ?? 20;
    const body: Record<string, unknown> = { runnerId, ...claimFields(options, waitSeconds) };
    return this.json({ method: "POST", path: "v1/claims", safe: false, body, timeoutMs: waitSeconds * 1000 + this.transport.timeoutMs, signal: options.signal });
  }

  /**
   * Extends the lease by its own length from now; {@link LeaseLost} once it is gone (`interrupted`
   * when new input ended it). The answer's `notifications` are those steered into the turn since
   * the runner's last answer.
   */
  heartbeat(leaseId: string, runnerId: string, options: CallOptions = {}): Promise<LeaseExtended> {
    return this.json({ method: "POST", path: `${leasePath(leaseId)}/heartbeat`, safe: false, body: { runnerId }, signal: options.signal });
  }

  /**
   * Waits up to `waitSeconds` (long poll) for new input during the turn: `notifications` steered
   * into the lease that this runner was not given yet (by this call or a heartbeat's answer), or
   * `interrupted: true` when new input ended the lease. Answers at once when either is already so,
   * else with an empty list after `waitSeconds`. Does not extend the lease; {@link LeaseLost} for a
   * lease that ended otherwise (`interrupted` when it was interrupted before).
   */
  awaitInput(leaseId: string, runnerId: string, options: AwaitInputOptions = {}): Promise<InputAnswer> {
    const waitSeconds = options.waitSeconds ?? 20;
    return this.json({
      method: "POST",
      path: `${leasePath(leaseId)}/input`,
      safe: true,
      body: { runnerId, waitSeconds },
      timeoutMs: waitSeconds * 1000 + this.transport.timeoutMs,
      signal: options.signal,
    });
  }

  /**
   * Ends the turn: every notification the lease carried is read, and of those steered into it the
   * ones `inputSeen` names (all without it); `result` (an object) is kept, and the `sends` go out
   * with it in one durable write (docs/api.md, "Agents that work together").
   */
  complete(leaseId: string, runnerId: string, result?: Record<string, unknown>, options: CompleteOptions = {}): Promise<ActivationCompleted> {
    const body = completeBody(runnerId, result, options);
    return this.report({ method: "POST", path: `${leasePath(leaseId)}/complete`, safe: false, body, signal: options.signal });
  }

  /** Ends the turn as failed: retry (the default), cancel, discard or snooze. */
  fail(leaseId: string, runnerId: string, options: FailOptions = {}): Promise<ActivationFailed> {
    const body = failBody(runnerId, options);
    return this.report({ method: "POST", path: `${leasePath(leaseId)}/fail`, safe: false, body, signal: options.signal });
  }

  /**
   * Reports the turn's outcome and claims again in the same request (docs/api.md, "Complete and
   * claim again"): once the report is durable the node makes the claim `next` describes, as
   * `runnerId`, and answers it too, so that a turn costs one request. The report stands whatever
   * the claim answers; a node that made no claim is answered as a claim that found nothing.
   * {@link LeaseLost} or {@link LeaseNotHeld} when the report is refused (no claim is made);
   * {@link InvalidRequest} ("unknown field 'next'") from a node without this, which reported nothing.
   */
  async reportAndClaim(
    leaseId: string,
    runnerId: string,
    outcome: Outcome,
    next: NextClaimOptions = {},
    options: ReportOptions = {},
  ): Promise<ClaimResponse> {
    const waitSeconds = next.waitSeconds ?? 0;
    let path: string;
    let body: Record<string, unknown>;
    if (outcome.action === "complete") {
      path = `${leasePath(leaseId)}/complete`;
      body = completeBody(runnerId, outcome.result, options);
    } else {
      path = `${leasePath(leaseId)}/fail`;
      body = failBody(runnerId, {
        action: outcome.action,
        error: outcome.error,
        snoozeSeconds: outcome.action === "snooze" ? outcome.seconds : undefined,
        inputSeen: options.inputSeen,
      });
    }
    body.next = claimFields(next, waitSeconds);
    const answer = await this.report<{ next?: ClaimResponse }>({
      method: "POST",
      path,
      safe: false,
      body,
      timeoutMs: waitSeconds * 1000 + 2 * this.transport.timeoutMs,
      signal: options.signal,
    });
    return answer.next ?? { status: "none" };
  }

  /**
   * Reports the runner degraded for `seconds` (with a `reason`), so that its claims are answered
   * `none` with reason `degraded` meanwhile; or healthy again (`degraded` false).
   */
  reportHealth(runnerId: string, degraded: boolean, options: HealthOptions = {}): Promise<RunnerHealthState> {
    let body: Record<string, unknown> = { degraded: false };
    if (degraded) {
      if (options.seconds === undefined) {
        throw new TypeError("seconds is required when reporting degraded");
      }
      body = { degraded: true, seconds: Math.max(1, Math.ceil(options.seconds)) };
      if (options.reason !== undefined) {
        body.reason = options.reason;
      }
    }
    return this.json({ method: "POST", path: `v1/runners/${segment(runnerId)}/health`, safe: true, body, signal: options.signal });
  }

  private async json<T>(call: Call): Promise<T> {
    return (await this.send(call)).body as T;
  }

  /**
   * Sends a lease's report. A node from before the runner's cursor refuses `inputSeen` as an
   * unknown field and reports nothing: the report goes again without it, as do later ones, which
   * is all that node does anyway (every steered notification is the turn's).
   */
  private async report<T>(call: Call & { body: Record<string, unknown> }): Promise<T> {
    const { inputSeen, ...without } = call.body;
    if (inputSeen === undefined || this.inputSeenRefused) {
      return this.json<T>({ ...call, body: without });
    }
    try {
      return await this.json<T>(call);
    } catch (error) {
      if (!(error instanceof InvalidRequest && error.apiMessage.includes("unknown field 'inputSeen'"))) {
        throw error;
      }
      this.inputSeenRefused = true;
      return this.json<T>({ ...call, body: without });
    }
  }

  /** Sends the call, with `?tenant=` when it is an agent call of a client with a tenant. */
  private send(call: Call): ReturnType<Transport["send"]> {
    // A call is its tenant's, as an agent is.
    if (this.tenant !== undefined && (call.path === "v1/agents" || call.path.startsWith("v1/agents/") || call.path.startsWith("v1/calls/"))) {
      return this.transport.send({ ...call, query: { ...call.query, tenant: this.tenant } });
    }
    return this.transport.send(call);
  }
}

/** The fields of a claim, as `POST /v1/claims` and a report's `next` take them. */
function claimFields(options: NextClaimOptions, waitSeconds: number): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    mode: options.mode ?? "hybrid",
    capabilities: [...new Set(options.capabilities ?? [])].sort(),
    waitSeconds,
  };
  if (options.leaseSeconds !== undefined) {
    fields.leaseSeconds = options.leaseSeconds;
  }
  return fields;
}

/**
 * A completion's body; the sends and the deferred calls only when there are some (a node from
 * before them then refuses the field rather than drop them), `inputSeen` whenever it is given.
 */
function completeBody(runnerId: string, result: Record<string, unknown> | undefined, options: CompleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { runnerId };
  if (result !== undefined) {
    body.result = result;
  }
  if (options.sends !== undefined && options.sends.length > 0) {
    body.send = [...options.sends];
  }
  if (options.defer !== undefined && options.defer.length > 0) {
    body.defer = [...options.defer];
  }
  if (options.inputSeen !== undefined) {
    body.inputSeen = [...options.inputSeen];
  }
  return body;
}

function failBody(runnerId: string, options: Omit<FailOptions, "signal">): Record<string, unknown> {
  const action = options.action ?? "retry";
  const body: Record<string, unknown> = { runnerId, action };
  if (options.error !== undefined) {
    body.error = options.error;
  }
  if (action === "snooze") {
    body.snoozeSeconds = Math.max(0, Math.round(options.snoozeSeconds ?? 0));
  }
  if (options.inputSeen !== undefined) {
    body.inputSeen = [...options.inputSeen];
  }
  return body;
}

function agentPath(agentId: string): string {
  return `v1/agents/${segment(agentId)}`;
}

function tenantPath(tenant: string): string {
  return `admin/tenants/${segment(tenant)}`;
}

function leasePath(leaseId: string): string {
  return `v1/leases/${segment(leaseId)}`;
}

function generatedDedupeKey(): string {
  return `rota-ts-${crypto.randomUUID()}`;
}

