/**
 * Agents that work together (docs/api.md): what a turn sends and calls with its completion, and
 * the typed answers of calls, as a reply notification in the caller's inbox or from
 * `GET /v1/calls/{callId}`.
 */
import type { ActivationNotification, CallAnswer, CallInfo, NewInputPolicy, SendItem } from "./types.js";

export type { CallAnswer, CallInfo, SendItem };

/** The type of the notification that carries a call's reply to the calling agent. */
export const REPLY_TYPE = "rota.reply";

/** `pending` only while a producer's call has no answer yet; a reply is never pending. */
export type CallStatus = "pending" | "answered" | "failed" | "timedOut";

/** An agent named across tenants: who made a call, or who was called. */
export interface AgentRef {
  tenant: string;
  agentId: string;
}

/** Why a call failed: `undeliverable`, `depth_exceeded`, a dead letter's reason, ... */
export interface CallError {
  reason: string;
  message?: string | null;
}

/**
 * The answer to a call a turn made, as it arrives in a later turn of the caller: a notification of
 * type {@link REPLY_TYPE} (read it with {@link replyOf}). Exactly one per call; the replies of a
 * call group arrive together.
 */
export interface Reply {
  callId: string;
  /** The agent that was called. */
  from: AgentRef;
  status: Exclude<CallStatus, "pending">;
  /** The answering turn's completion result, when `answered`. */
  result?: unknown;
  /** Why, when `failed` or `timedOut`. */
  error?: CallError;
}

/** The options of a turn's `context.send`. */
export interface SendOptions {
  /** Without one the node derives a key from the lease and the send's place in the turn. */
  dedupeKey?: string;
  newInput?: NewInputPolicy;
}

/** The options of a turn's call. */
export interface TurnCallOptions extends SendOptions {
  /** 1 to 86,400 seconds; the node's default is an hour. */
  timeoutSeconds?: number;
  /** Calls of one turn with the same group have their replies delivered together, once all are in. */
  group?: string;
}

/** The send list item for a send (`call` undefined) or a call. */
export function sendItem(agentId: string, type: string, payload: unknown, options: TurnCallOptions = {}, call = false): SendItem {
  const item: SendItem = { agentId, type };
  if (payload !== undefined) {
    item.payload = payload;
  }
  if (options.dedupeKey !== undefined) {
    item.dedupeKey = options.dedupeKey;
  }
  if (options.newInput !== undefined) {
    item.newInput = options.newInput;
  }
  if (call) {
    const spec: { timeoutSeconds?: number; group?: string } = {};
    if (options.timeoutSeconds !== undefined) {
      spec.timeoutSeconds = options.timeoutSeconds;
    }
    if (options.group !== undefined) {
      spec.group = options.group;
    }
    item.call = spec;
  }
  return item;
}

/** Whether `notification` is the reply to a call this agent made. */
export function isReply(notification: Pick<ActivationNotification, "type">): boolean {
  return notification.type === REPLY_TYPE;
}

/**
 * The typed reply `notification` carries; undefined when it is not a reply. Throws a TypeError for
 * a reply without a call id.
 */
export function replyOf(notification: Pick<ActivationNotification, "type" | "payload">): Reply | undefined {
  if (!isReply(notification)) {
    return undefined;
  }
  const payload = notification.payload;
  if (typeof payload !== "object" || payload === null || typeof (payload as { callId?: unknown }).callId !== "string") {
    throw new TypeError(`not a reply's payload: ${JSON.stringify(payload)}`);
  }
  return payload as Reply;
}

/**
 * What the notification says about the call it is (its `call`); undefined when it is not one. It
 * takes any notification object: one an assignment carries, or one steered into a turn.
 */
export function callOf(notification: object): CallInfo | undefined {
  const call = (notification as { call?: unknown }).call;
  return typeof call === "object" && call !== null && typeof (call as { callId?: unknown }).callId === "string" ? (call as CallInfo) : undefined;
}
