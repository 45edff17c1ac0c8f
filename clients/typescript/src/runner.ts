import type { Rota } from "./client.js";
import { ConnectionFailed, InvalidRequest, LeaseLost, LeaseNotHeld, NotFound, RotaError, Unavailable } from "./errors.js";
import { sendItem, type SendItem, type SendOptions, type TurnCallOptions } from "./calls.js";
import { Outcome } from "./outcome.js";
import { sleep } from "./transport.js";
import type { Activation, ActivationNotification, CallInfo, ClaimResponse, RunnerHealthState, RunnerMode } from "./types.js";

/** A claim's answer and when it arrived (`performance.now()`). */
interface Claimed {
  answer: ClaimResponse;
  received: number;
}

/**
 * Why a turn's signal fired: the lease was lost (the node answered 410, or 409/404), its deadline
 * passed without a heartbeat, the runner stopped, or new input ended the lease (`newInput:
 * interrupt`: its notifications are unread again, with the new one, and the agent's next turn has
 * them all).
 */
export type CancelReason = "lease_lost" | "lease_expired" | "shutdown" | "interrupted";

/**
 * When a running turn long-polls `POST /v1/leases/{leaseId}/input`: `auto` for an agent whose
 * `newInput` is not `queue` (the assignment says), `always` (also catches notifications that carry
 * their own policy), `never` (steered notifications then arrive with heartbeats, an interrupt
 * with the next heartbeat's 410).
 */
export type FollowInput = "auto" | "always" | "never";

/** The reason of an aborted turn signal (`signal.reason`), thrown by `signal.throwIfAborted()`. */
export class TurnCancelled extends Error {
  override name = "TurnCancelled";

  constructor(readonly reason: CancelReason) {
    super(`the turn was cancelled: ${reason}`);
  }
}

/** What a handler gets beside its activation. */
export interface TurnContext {
  /** The runner id this turn was claimed as (the slot's). */
  readonly runnerId: string;
  readonly leaseId: string;
  /**
   * Fires when the lease is lost (the node answered a heartbeat 410, or 409/404), when its deadline
   * passes without a successful heartbeat, when new input interrupts the turn, or when the runner
   * stops and the grace is over. Pass it to every call the turn makes (fetch, model SDKs) and stop
   * when it fires: nothing is reported for a cancelled turn. Its `reason` is a {@link TurnCancelled}.
   */
  readonly signal: AbortSignal;
  /** Milliseconds left before the lease would run out without another heartbeat. */
  remainingMs(): number;
  /**
   * New input during the turn (`newInput: steer`): each next notification steered into the lease,
   * as it arrives, until the turn ends. Completing the turn completes those the handler took (by
   * any of these methods: {@link inputSeen}); any it never took return to the inbox, unread, for
   * the next turn. Throws the signal's {@link TurnCancelled} once the turn is cancelled.
   */
  input(): AsyncGenerator<ActivationNotification, void, undefined>;
  /**
   * The next steered notification, waiting up to `timeoutMs` (without one: until it comes or the
   * turn ends); undefined when none came in time. Rejects with the signal's {@link TurnCancelled}
   * once the turn is cancelled.
   */
  nextInput(timeoutMs?: number): Promise<ActivationNotification | undefined>;
  /** Every steered notification that arrived and was not taken yet, without waiting. */
  drainInput(): ActivationNotification[];
  /**
   * Hands every steered notification to `callback` as it arrives, those waiting first, instead of
   * queueing them for {@link input}, {@link nextInput} and {@link drainInput}.
   */
  onInput(callback: (notification: ActivationNotification) => void): void;
  /**
   * The ids of the steered notifications the handler took so far (iterated, waited for, drained
   * or handed to its callback), in order: the turn's report names them (`inputSeen`). One that
   * arrived but was never taken is not the turn's: it returns to the inbox for the next turn.
   */
  readonly inputSeen: readonly string[];
  /**
   * Sends a notification to another agent of the tenant with this turn's completion, in one durable
   * write with it; nothing is sent if the turn fails or is cancelled (docs/api.md, "Agents that work
   * together"). Throws once the handler has returned.
   */
  send(agentId: string, type: string, payload?: unknown, options?: SendOptions): void;
  /**
   * Calls another agent of the tenant with this turn's completion. Nothing comes back here: the
   * node assigns the call's id, and the answer arrives in a later turn of this agent as a
   * notification of type `rota.reply` (read it with `replyOf`). Calls with the same `group` have
   * their replies delivered together, once all are in.
   */
  call(agentId: string, type: string, payload?: unknown, options?: TurnCallOptions): void;
  /** The sends and calls buffered so far, as the completion's `send` list carries them. */
  readonly sends: readonly SendItem[];
  /**
   * Every call this turn may answer: those its notifications carry, then those earlier turns
   * deferred (the assignment's `owes`). Completing the turn answers each with its result, unless
   * {@link defer} names it.
   */
  readonly owes: readonly CallInfo[];
  /**
   * Leaves the call `callId` unanswered by this turn's completion: the agent keeps owing it and
   * answers it with a later turn's result, e.g. once the calls this turn makes have their replies
   * (docs/api.md, "Deferred answers"). Throws once the handler has returned.
   */
  defer(callId: string): void;
  /** Defers every call this turn may answer ({@link owes}). */
  deferAll(): void;
  /** The calls deferred so far, as the completion's `defer` list carries them. */
  readonly deferred: readonly string[];
}

export type Handler = (activation: Activation, context: TurnContext) => Outcome | void | Promise<Outcome | void>;

/** Hooks into a runner's life; every one is optional. Errors thrown here are ignored. */
export interface RunnerListener {
  onClaimed?(activation: Activation): void;
  onHeartbeat?(activation: Activation): void;
  onReported?(activation: Activation, outcome: Outcome): void;
  onCancelled?(activation: Activation, reason: CancelReason): void;
  /** A claim was answered `none` with a reason (`degraded`, `draining`): the slot waits. */
  onRefused?(runnerId: string, reason: string): void;
  onError?(what: string, error: unknown): void;
}

export interface RunnerOptions {
  /** The runner's identity; slot i of several claims as `<runnerId>-i`. Default `runner-<random>`. */
  runnerId?: string;
  mode?: RunnerMode;
  capabilities?: Iterable<string>;
  /** How many turns run at once (one slot each); default 1. */
  concurrency?: number;
  /** The lease asked for, 5 to 7200 seconds; default the node's. */
  leaseSeconds?: number;
  /** The claim's long poll, 0 to 60 seconds; default 20. */
  waitSeconds?: number;
  /** Heartbeats every this fraction of the lease; default 1/3. */
  heartbeatFraction?: number;
  /** Heartbeats every this many milliseconds instead (tests). */
  heartbeatIntervalMs?: number;
  /** How long stop() lets running turns finish before cancelling them; default 30 s. */
  shutdownGraceMs?: number;
  /** When a running turn long-polls its new input; default `auto` (see {@link FollowInput}). */
  followInput?: FollowInput;
  listener?: RunnerListener;
}

const MAX_ERROR_BACKOFF_MS = 10_000;
const MIN_EMPTY_CLAIM_MS = 1_000;
/** How long a slot waits after a refusal that names no `retryAfterSeconds`. */
const REFUSED_WAIT_MS = 5_000;

/**
 * Claims activations and runs `handler` on each, `concurrency` at a time: the loop of the Java and
 * Python runners.
 *
 * Each slot long-polls `POST /v1/claims` for the runner's `mode` and `capabilities`. While a handler
 * runs, its lease is heartbeated every `heartbeatFraction` of the lease on the monotonic clock
 * (`performance.now()`); when the node answers that the lease is lost, or the deadline passes
 * without a successful heartbeat, the turn's `signal` fires and nothing is reported for it.
 * Otherwise the handler's outcome is reported: nothing returned completes, an {@link Outcome}
 * says how, a thrown error retries with its text. The report carries the slot's next claim
 * (docs/api.md, "Complete and claim again") and the slot runs what it answers, so while work waits
 * a turn is one request; when that claim finds nothing the slot long-polls again.
 *
 * A runner that cannot do good work says so with {@link reportHealth}: its claims are answered
 * `none` with reason `degraded` until it reports healthy; on such an answer (also when the node
 * degraded it after failures in a row, or an admin drained it) a slot waits `retryAfterSeconds`.
 *
 * New input during a turn (docs/api.md, "New input during a turn"): notifications steered into a
 * running lease reach the handler through its context (`input()`, `nextInput()`, `drainInput()`,
 * `onInput()`), each once, from the answers of the heartbeats and, for an agent that steers or
 * interrupts (see {@link FollowInput}), of a long poll on `POST /v1/leases/{leaseId}/input`. The
 * turn's report, whatever its outcome, and a lease handed back name those the handler took
 * (`inputSeen`, an empty list when it took none): any other returns to the inbox. An
 * interrupt fires the turn's signal with reason `interrupted` and nothing is reported: the node
 * has ended the lease and hands its notifications, with the new one, to the agent's next turn.
 *
 * {@link stop} (or SIGTERM / SIGINT with `handleSignals`) stops claiming, gives running turns
 * `shutdownGraceMs` to finish and report, then fires their signals and hands their leases back with
 * a snooze of 0 s, which uses up no attempt.
 */
export class Runner {
  readonly runnerId: string;
  readonly concurrency: number;
  private readonly options: Required<Pick<RunnerOptions, "waitSeconds" | "heartbeatFraction" | "shutdownGraceMs">> & RunnerOptions;
  private readonly listener: RunnerListener;
  private readonly stopping = new AbortController();
  private grace: number | undefined;
  private readonly claims = new Map<string, AbortController>();
  private readonly running = new Map<string, Turn>();
  private readonly reports = new Set<Promise<void>>();
  private healthy = new AbortController();
  /** The node answered 400 to a report's `next`: reports and claims go separately from then on. */
  private nextRefused = false;
  private finished: Promise<void> | undefined;

  constructor(
    readonly client: Rota,
    readonly handler: Handler,
    options: RunnerOptions = {},
  ) {
    const concurrency = options.concurrency ?? 1;
    const heartbeatFraction = options.heartbeatFraction ?? 1 / 3;
    const waitSeconds = options.waitSeconds ?? 20;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError("concurrency must be a whole number of at least 1");
    }
    if (!(heartbeatFraction > 0 && heartbeatFraction < 1)) {
      throw new RangeError("heartbeatFraction must be in (0, 1)");
    }
    if (options.leaseSeconds !== undefined && !(options.leaseSeconds >= 5 && options.leaseSeconds <= 7200)) {
      throw new RangeError("leaseSeconds must be 5 to 7200 (the API's range)");
    }
    if (!(waitSeconds >= 0 && waitSeconds <= 60)) {
      throw new RangeError("waitSeconds must be 0 to 60 (the API's range)");
    }
    if (options.followInput !== undefined && !["auto", "always", "never"].includes(options.followInput)) {
      throw new RangeError("followInput must be auto, always or never");
    }
    this.runnerId = options.runnerId ?? `runner-${crypto.randomUUID().slice(0, 8)}`;
    this.concurrency = concurrency;
    this.options = { ...options, waitSeconds, heartbeatFraction, shutdownGraceMs: options.shutdownGraceMs ?? 30_000 };
    this.listener = options.listener ?? {};
  }

  /** The runner ids the slots claim as: `runnerId`, or `<runnerId>-i` for several. */
  get slotIds(): string[] {
    if (this.concurrency === 1) {
      return [this.runnerId];
    }
    return Array.from({ length: this.concurrency }, (_, i) => `${this.runnerId}-${i + 1}`);
  }

  /** How many turns are running now. */
  get busy(): number {
    return this.running.size;
  }

  /**
   * Reports every slot degraded for `seconds` (with a `reason`), so that the node gives it no work
   * meanwhile; or healthy again (`degraded` false), which also wakes the slots waiting out a
   * refusal. Callable before {@link run}, from a handler, or from a health probe.
   */
  async reportHealth(degraded: boolean, options: { reason?: string; seconds?: number } = {}): Promise<RunnerHealthState[]> {
    const states: RunnerHealthState[] = [];
    for (const slot of this.slotIds) {
      states.push(await this.client.reportHealth(slot, degraded, options));
    }
    if (!degraded) {
      const healthy = this.healthy;
      this.healthy = new AbortController();
      healthy.abort();
    }
    return states;
  }

  /**
   * Runs until {@link stop}; with `handleSignals` SIGTERM and SIGINT stop it too. Resolves once the
   * runner has stopped and handed back what it held.
   */
  run(options: { handleSignals?: boolean } = {}): Promise<void> {
    if (this.finished) {
      throw new Error("this runner has already been started");
    }
    this.finished = this.main(options.handleSignals ?? false);
    return this.finished;
  }

  /** Asks the runner to stop, giving running turns `graceMs` (default `shutdownGraceMs`); resolves once it has. */
  async stop(graceMs?: number): Promise<void> {
    if (graceMs !== undefined) {
      this.grace = graceMs;
    }
    this.stopping.abort(new TurnCancelled("shutdown"));
    await this.finished;
  }

  private async main(handleSignals: boolean): Promise<void> {
    const onSignal = (): void => void this.stop();
    if (handleSignals) {
      process.on("SIGTERM", onSignal);
      process.on("SIGINT", onSignal);
    }
    try {
      const slots = this.slotIds.map((id) => this.slot(id));
      await untilAborted(this.stopping.signal);
      await this.shutDown(slots);
    } finally {
      if (handleSignals) {
        process.off("SIGTERM", onSignal);
        process.off("SIGINT", onSignal);
      }
    }
  }

  private async shutDown(slots: Promise<void>[]): Promise<void> {
    // A claim in flight is abandoned: the node hands back whatever it grants to a closed connection
    // without using an attempt.
    for (const claim of this.claims.values()) {
      claim.abort(new TurnCancelled("shutdown"));
    }
    const grace = Math.max(0, this.grace ?? this.options.shutdownGraceMs);
    const allSlots = Promise.all(slots);
    await within(allSlots, grace);
    if (this.reports.size > 0) {
      // Reports sent while their slots claimed again: a finished turn is reported.
      await within(Promise.all(this.reports), Math.max(1_000, grace));
    }
    const left = [...this.running.values()];
    for (const turn of left) {
      turn.cancel("shutdown");
    }
    await Promise.all(left.map((turn) => this.handBack(turn, "runner stopped")));
    if (!(await within(allSlots, 10_000))) {
      this.notify("onError", "stop", new Error("a handler ignores its turn's signal"));
    }
  }

  // ---- one slot ----

  private async slot(slotId: string): Promise<void> {
    let backoff = 500;
    // The answer of the claim the last report carried, when it brought one.
    let next: Claimed | undefined;
    while (!this.stopping.signal.aborted) {
      // Taken before the claim: a healthy report made while it is answered still wakes the slot.
      const healthy = this.healthy.signal;
      let claimed = next;
      next = undefined;
      let longPoll: number | undefined;
      if (claimed === undefined) {
        const claim = new AbortController();
        this.claims.set(slotId, claim);
        longPoll = performance.now();
        try {
          const answer = await this.client.claim(slotId, {
            mode: this.options.mode ?? "hybrid",
            capabilities: this.options.capabilities ?? [],
            waitSeconds: this.options.waitSeconds,
            leaseSeconds: this.options.leaseSeconds,
            signal: claim.signal,
          });
          claimed = { answer, received: performance.now() };
          backoff = 500;
        } catch (error) {
          if (this.stopping.signal.aborted) {
            return;
          }
          this.notify("onError", "claim", error);
          const retryAfter = error instanceof RotaError ? error.retryAfter : undefined;
          await this.pause(retryAfter !== undefined ? retryAfter * 1000 : backoff);
          backoff = Math.min(backoff * 2, MAX_ERROR_BACKOFF_MS);
          continue;
        } finally {
          this.claims.delete(slotId);
        }
      }
      const { answer, received } = claimed;
      if (answer.status === "assigned") {
        const activation = answer.assignment;
        if (this.stopping.signal.aborted) {
          await this.handBackLease(activation, slotId, "runner stopping");
          return;
        }
        next = await this.runTurn(slotId, activation, received);
      } else if (answer.status === "paused") {
        await this.pause(Math.max(1_000, Math.min(this.options.waitSeconds * 1000, 5_000)));
      } else if ("reason" in answer) {
        // Degraded or draining: ask again when told, or at once after reporting healthy.
        this.notify("onRefused", slotId, answer.reason);
        await this.pause(answer.retryAfterSeconds ? answer.retryAfterSeconds * 1000 : REFUSED_WAIT_MS, healthy);
      } else if (longPoll !== undefined && received - longPoll < MIN_EMPTY_CLAIM_MS) {
        // Nothing, at once (no long poll, or a node that is shutting down): asking again at once would spin.
        await this.pause(MIN_EMPTY_CLAIM_MS - (received - longPoll));
      }
      // A report's claim that found nothing: the slot long-polls at once.
    }
    if (next?.answer.status === "assigned") {
      await this.handBackLease(next.answer.assignment, slotId, "runner stopping");
    }
  }

  /** Waits, ending early when the runner stops (or `wake` fires). */
  private async pause(ms: number, wake?: AbortSignal): Promise<void> {
    const signal = wake ? AbortSignal.any([this.stopping.signal, wake]) : this.stopping.signal;
    await sleep(ms, signal).catch(() => undefined);
  }

  private leaseLengthMs(activation: Activation): number {
    const granted = Date.parse(activation.grantedAt);
    const expires = Date.parse(activation.expiresAt);
    let length = expires - granted;
    if (!Number.isFinite(length) || length <= 0) {
      length = (this.options.leaseSeconds ?? 300) * 1000;
    }
    return Math.max(1_000, length);
  }

  /** Runs the turn and reports it; the answer of the claim its report carried, if any. */
  private async runTurn(slotId: string, activation: Activation, received: number): Promise<Claimed | undefined> {
    const length = this.leaseLengthMs(activation);
    // The grant happened before the answer arrived: the local deadline keeps a small margin so that
    // it never falls after the node's expiry.
    const turn = new Turn(slotId, activation, received + length - Math.min(500, length / 20), (error) =>
      this.notify("onError", "input", error),
    );
    this.running.set(slotId, turn);
    let settled: { value: Outcome | void } | { error: unknown };
    try {
      this.notify("onClaimed", activation);
      const keeper = this.keep(turn, length);
      const follower = this.follows(activation) ? this.follow(turn) : undefined;
      try {
        settled = await Promise.resolve()
          .then(() => this.handler(activation, turn.context))
          .then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );
      } finally {
        turn.settle();
        await keeper;
        await follower;
      }
    } catch (error) {
      // A bug (here or in a listener) must not end the slot, nor keep the lease.
      this.running.delete(slotId);
      this.notify("onError", "run", error);
      await this.handBack(turn, `runner error: ${String(error)}`);
      return undefined;
    }
    this.running.delete(slotId);
    const reason = turn.reason;
    const buffered = turn.closeSends();
    if (reason === undefined) {
      const outcome = outcomeOf(settled);
      // Sends ride on a completion only: a failed turn sends nothing. Every try of the report
      // carries the same list, so the node's per-item dedupe keys hold.
      turn.sends = outcome.action === "complete" ? buffered : [];
      turn.defer = outcome.action === "complete" ? turn.deferredCalls.slice() : [];
      // Steered input the handler never took goes back to the inbox for the next turn.
      turn.inputSeen = turn.takenInput.slice();
      if (this.stopping.signal.aborted || this.nextRefused) {
        // No next turn to claim, or a node without "next": the report goes out alone, while the
        // slot claims again (stopping waits for it).
        this.reportAside(turn, outcome, false);
        return undefined;
      }
      return this.reportAndClaim(turn, outcome);
    }
    if (reason === "shutdown") {
      await this.handBack(turn, "runner stopped before the turn finished");
    }
    // An interrupted lease was ended by the node: there is nothing to report or hand back.
    this.notify("onCancelled", activation, reason);
    return undefined;
  }

  /**
   * Reports with the slot's next claim in the same request (docs/api.md, "Complete and claim
   * again"): one round trip per turn, the claim made by the node once the report is durable. The
   * claim does not wait (`waitSeconds` 0): when it finds nothing the slot long-polls with
   * `POST /v1/claims` as before, so stopping never waits out a long poll behind a report. A report
   * whose answer was lost goes again alone (a lease a lost answer carried expires and counts as a
   * retry); a node that answers 400 `unknown field 'next'` reported nothing and gets plain reports
   * and claims from then on.
   */
  private async reportAndClaim(turn: Turn, outcome: Outcome): Promise<Claimed | undefined> {
    const { activation, slotId } = turn;
    try {
      const answer = await this.client.reportAndClaim(
        activation.leaseId,
        slotId,
        outcome,
        {
          mode: this.options.mode ?? "hybrid",
          capabilities: this.options.capabilities ?? [],
          waitSeconds: 0,
          leaseSeconds: this.options.leaseSeconds,
        },
        { sends: turn.sends, defer: turn.defer, inputSeen: turn.inputSeen },
      );
      const received = performance.now();
      this.notify("onReported", activation, outcome);
      return { answer, received };
    } catch (error) {
      if (error instanceof LeaseLost || error instanceof LeaseNotHeld) {
        this.notify("onCancelled", activation, lostReason(error));
      } else if (error instanceof InvalidRequest && error.apiMessage.includes("unknown field 'next'")) {
        this.nextRefused = true;
        this.reportAside(turn, outcome, false);
      } else if (error instanceof ConnectionFailed || error instanceof Unavailable) {
        this.reportAside(turn, outcome, error instanceof ConnectionFailed && error.requestSent);
      } else {
        this.notify("onError", "report", error);
      }
      return undefined;
    }
  }

  /** Reports alone while the slot claims again; stopping waits for it. */
  private reportAside(turn: Turn, outcome: Outcome, answerLost: boolean): void {
    const report = this.report(turn, outcome, answerLost).catch((error: unknown) => this.notify("onError", "report", error));
    this.reports.add(report);
    void report.finally(() => this.reports.delete(report));
  }

  // ---- the lease ----

  /** Heartbeats the lease and fires the turn's signal when it is lost or runs out. */
  private async keep(turn: Turn, length: number): Promise<void> {
    const interval = this.options.heartbeatIntervalMs ?? length * this.options.heartbeatFraction;
    let nextBeat = performance.now() + interval;
    while (turn.running) {
      const now = performance.now();
      if (now >= turn.deadline) {
        turn.cancel("lease_expired");
        return;
      }
      if (now >= nextBeat) {
        const sent = performance.now();
        try {
          const beat = await this.client.heartbeat(turn.activation.leaseId, turn.slotId, {
            signal: AbortSignal.timeout(Math.max(50, Math.ceil(turn.deadline - sent))),
          });
          turn.deadline = sent + length;
          nextBeat = performance.now() + interval;
          this.notify("onHeartbeat", turn.activation);
          // A node from before new input during a turn answers without them.
          turn.offer(beat.notifications ?? []);
        } catch (error) {
          if (error instanceof LeaseLost || error instanceof LeaseNotHeld || error instanceof NotFound) {
            turn.cancel(lostReason(error));
            return;
          }
          this.notify("onError", "heartbeat", error);
          nextBeat = performance.now() + Math.min(interval, 1_000);
        }
        continue;
      }
      await turn.sleep(Math.min(nextBeat, turn.deadline) - performance.now());
    }
  }

  // ---- new input during the turn ----

  /** Whether the turn long-polls its input (see {@link FollowInput}). */
  private follows(activation: Activation): boolean {
    const follow = this.options.followInput ?? "auto";
    if (follow !== "auto") {
      return follow === "always";
    }
    const policy = activation.agent.newInput;
    return policy !== undefined && policy !== "queue";
  }

  /**
   * Long-polls `/input` while the handler runs: steered notifications go to its context, an
   * interrupt fires its signal with reason `interrupted`. The poll in flight is abandoned when the
   * turn settles or is cancelled.
   */
  private async follow(turn: Turn): Promise<void> {
    const waitSeconds = Math.max(1, this.options.waitSeconds);
    while (turn.running) {
      try {
        const answer = await this.client.awaitInput(turn.activation.leaseId, turn.slotId, { waitSeconds, signal: turn.done });
        if (answer.interrupted) {
          turn.cancel("interrupted");
          return;
        }
        turn.offer(answer.notifications);
      } catch (error) {
        if (!turn.running) {
          return;
        }
        if (error instanceof LeaseLost) {
          turn.cancel(lostReason(error));
          return;
        }
        if (error instanceof LeaseNotHeld || error instanceof NotFound) {
          // The heartbeat says so too, and cancels the turn.
          return;
        }
        this.notify("onError", "input", error);
        await sleep(500, turn.done).catch(() => undefined);
      }
    }
  }

  /** Reports alone, again while the connection fails and the lease lasts; `answerLost` when an earlier try may have reached the node. */
  private async report(turn: Turn, outcome: Outcome, answerLost: boolean): Promise<void> {
    const { activation, slotId } = turn;
    for (;;) {
      try {
        const inputSeen = turn.inputSeen;
        if (outcome.action === "complete") {
          await this.client.complete(activation.leaseId, slotId, outcome.result, { sends: turn.sends, defer: turn.defer, inputSeen });
        } else if (outcome.action === "snooze") {
          await this.client.fail(activation.leaseId, slotId, { action: "snooze", snoozeSeconds: outcome.seconds, error: outcome.error, inputSeen });
        } else {
          await this.client.fail(activation.leaseId, slotId, { action: outcome.action, error: outcome.error, inputSeen });
        }
        this.notify("onReported", activation, outcome);
        return;
      } catch (error) {
        if (error instanceof LeaseLost || error instanceof LeaseNotHeld) {
          // After an answer was lost, 410 most likely means the first report went through.
          if (!answerLost) {
            this.notify("onCancelled", activation, lostReason(error));
          }
          return;
        }
        if (error instanceof ConnectionFailed || error instanceof Unavailable) {
          answerLost ||= error instanceof ConnectionFailed && error.requestSent;
          const remaining = turn.context.remainingMs();
          if (remaining <= 0) {
            this.notify("onError", "report", error);
            return;
          }
          await sleep(Math.min(error.retryAfter !== undefined ? error.retryAfter * 1000 : 500, Math.max(50, remaining)));
          continue;
        }
        this.notify("onError", "report", error);
        return;
      }
    }
  }

  private async handBack(turn: Turn, why: string): Promise<void> {
    if (turn.handedBack) {
      return;
    }
    turn.handedBack = true;
    await this.handBackLease(turn.activation, turn.slotId, why, turn.takenInput.slice());
  }

  /** Snoozes the lease for 0 s (no attempt used), naming the steered input its handler took. */
  private async handBackLease(activation: Activation, slotId: string, why: string, inputSeen: readonly string[] = []): Promise<void> {
    try {
      await this.client.fail(activation.leaseId, slotId, { action: "snooze", snoozeSeconds: 0, error: why, inputSeen });
    } catch (error) {
      if (!(error instanceof LeaseLost || error instanceof LeaseNotHeld || error instanceof NotFound)) {
        this.notify("onError", "hand back", error);
      }
    }
  }

  private notify<K extends keyof RunnerListener>(hook: K, ...args: Parameters<NonNullable<RunnerListener[K]>>): void {
    const call = this.listener[hook] as ((...a: unknown[]) => void) | undefined;
    try {
      call?.apply(this.listener, args);
    } catch {
      // a listener's failure is its own
    }
  }
}

/**
 * One running turn: its lease's deadline on the monotonic clock, the signal the handler sees, and
 * the new input steered into it.
 */
class Turn {
  deadline: number;
  reason: CancelReason | undefined;
  handedBack = false;
  /** What the turn's completion sends (set once the handler is done). */
  sends: SendItem[] = [];
  /** The calls the turn's completion leaves owed (set once the handler is done). */
  defer: string[] = [];
  /** The calls the handler deferred. */
  readonly deferredCalls: string[] = [];
  /** The ids of the steered notifications the handler took, in order. */
  readonly takenInput: string[] = [];
  /** What the turn's report names in `inputSeen` (set once the handler is done). */
  inputSeen: string[] = [];
  isSettled = false;
  readonly context: TurnContext;
  /** Fires when the handler settles or the turn is cancelled. */
  readonly done: AbortSignal;
  private readonly abort = new AbortController();
  private readonly settled = new AbortController();
  private readonly input: ActivationNotification[] = [];
  private readonly seen = new Set<string>();
  /** Waiters of nextInput(), woken by new input and by the end of the turn. */
  private readonly waiters = new Set<() => void>();
  private callback: ((notification: ActivationNotification) => void) | undefined;
  private readonly outbox: SendItem[] = [];
  private outboxClosed = false;

  constructor(
    readonly slotId: string,
    readonly activation: Activation,
    deadline: number,
    private readonly onCallbackError: (error: unknown) => void,
  ) {
    this.deadline = deadline;
    this.done = AbortSignal.any([this.abort.signal, this.settled.signal]);
    const signal = this.abort.signal;
    const next = (timeoutMs?: number): Promise<ActivationNotification | undefined> => this.next(timeoutMs);
    const outbox = this.outbox;
    const deferred = this.deferredCalls;
    const taken = this.takenInput;
    const owes: CallInfo[] = [
      ...activation.notifications.flatMap((n) => (n.call === undefined ? [] : [n.call])),
      ...(activation.owes ?? []),
    ];
    this.context = {
      runnerId: slotId,
      leaseId: activation.leaseId,
      signal,
      remainingMs: () => Math.max(0, this.deadline - performance.now()),
      input: async function* () {
        for (;;) {
          const notification = await next();
          if (notification === undefined) {
            return;
          }
          yield notification;
        }
      },
      nextInput: next,
      drainInput: () => this.took(this.input.splice(0)),
      onInput: (callback) => {
        this.callback = callback;
        for (const notification of this.took(this.input.splice(0))) {
          this.deliver(callback, notification);
        }
      },
      get inputSeen(): readonly string[] {
        return taken.slice();
      },
      send: (agentId, type, payload, options) => this.buffer(sendItem(agentId, type, payload, options)),
      call: (agentId, type, payload, options) => this.buffer(sendItem(agentId, type, payload, options, true)),
      get sends(): readonly SendItem[] {
        return outbox.slice();
      },
      owes,
      defer: (callId) => this.deferCall(callId),
      deferAll: () => owes.forEach((c) => this.deferCall(c.callId)),
      get deferred(): readonly string[] {
        return deferred.slice();
      },
    };
  }

  private buffer(item: SendItem): void {
    if (this.outboxClosed) {
      throw new Error("the turn is over: a send must be made before the handler returns");
    }
    this.outbox.push(item);
  }

  private deferCall(callId: string): void {
    if (this.outboxClosed) {
      throw new Error("the turn is over: a defer must be made before the handler returns");
    }
    if (callId === "") {
      throw new Error("a call id is required");
    }
    if (!this.deferredCalls.includes(callId)) {
      this.deferredCalls.push(callId);
    }
  }

  /** The handler is done: later sends are refused; what the turn's completion carries. */
  closeSends(): SendItem[] {
    this.outboxClosed = true;
    return this.outbox.slice();
  }

  /** Whether the handler still runs and the turn was not cancelled. */
  get running(): boolean {
    return !this.isSettled && this.reason === undefined;
  }

  cancel(reason: CancelReason): void {
    if (this.reason === undefined && !this.isSettled) {
      this.reason = reason;
      this.abort.abort(new TurnCancelled(reason));
      this.wake();
    }
  }

  settle(): void {
    this.isSettled = true;
    this.settled.abort();
    this.wake();
  }

  /** New input arrived (from the input long poll or a heartbeat's answer); repeats are dropped. */
  offer(notifications: readonly ActivationNotification[]): void {
    for (const notification of notifications) {
      if (!this.running || this.seen.has(notification.notificationId)) {
        continue;
      }
      this.seen.add(notification.notificationId);
      if (this.callback !== undefined) {
        this.took([notification]);
        this.deliver(this.callback, notification);
      } else {
        this.input.push(notification);
      }
    }
    this.wake();
  }

  /** The handler takes `notifications`: the turn's report names them. */
  private took(notifications: ActivationNotification[]): ActivationNotification[] {
    this.takenInput.push(...notifications.map((n) => n.notificationId));
    return notifications;
  }

  private deliver(callback: (notification: ActivationNotification) => void, notification: ActivationNotification): void {
    try {
      callback(notification);
    } catch (error) {
      this.onCallbackError(error);
    }
  }

  private async next(timeoutMs?: number): Promise<ActivationNotification | undefined> {
    const until = timeoutMs === undefined ? Infinity : performance.now() + Math.max(0, timeoutMs);
    for (;;) {
      this.abort.signal.throwIfAborted();
      const notification = this.input.shift();
      if (notification !== undefined) {
        this.took([notification]);
        return notification;
      }
      const left = until - performance.now();
      if (this.isSettled || left <= 0) {
        return undefined;
      }
      await new Promise<void>((resolve) => {
        const timer = Number.isFinite(left) ? setTimeout(woken, left) : undefined;
        const waiters = this.waiters;
        waiters.add(woken);
        function woken(): void {
          clearTimeout(timer);
          waiters.delete(woken);
          resolve();
        }
      });
    }
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) {
      waiter();
    }
  }

  /** Sleeps, waking early when the handler settles or the turn is cancelled. */
  async sleep(ms: number): Promise<void> {
    await sleep(Math.max(0, ms), this.done).catch(() => undefined);
  }
}

/** The cancel reason of a report's or a heartbeat's refusal. */
function lostReason(error: RotaError): CancelReason {
  return error instanceof LeaseLost && error.interrupted ? "interrupted" : "lease_lost";
}

function outcomeOf(settled: { value: Outcome | void } | { error: unknown }): Outcome {
  if ("error" in settled) {
    const error = settled.error;
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return Outcome.retry(text.slice(0, 2000));
  }
  const value = settled.value;
  if (value === undefined || value === null) {
    return Outcome.complete();
  }
  if (typeof value === "object" && "action" in value) {
    return value;
  }
  return Outcome.retry(`the handler returned ${typeof value}, not an Outcome`);
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
    } else {
      signal.addEventListener("abort", () => resolve(), { once: true });
    }
  });
}

/** True when `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
