export {
  Rota,
  type RotaOptions,
  type CallOptions,
  type ClaimOptions,
  type NextClaimOptions,
  type FailOptions,
  type HealthOptions,
  type NotifyOptions,
  type AwaitInputOptions,
  type CompleteOptions,
  type ReportOptions,
  type StartCallOptions,
  type ProducerCallOptions,
  type GetCallOptions,
  type CallAccepted,
} from "./client.js";
export {
  REPLY_TYPE,
  isReply,
  replyOf,
  callOf,
  type AgentRef,
  type CallAnswer,
  type CallError,
  type CallInfo,
  type CallStatus,
  type Reply,
  type SendItem,
  type SendOptions,
  type TurnCallOptions,
} from "./calls.js";
export {
  RotaError,
  InvalidRequest,
  Unauthenticated,
  Forbidden,
  NotFound,
  Conflict,
  LeaseNotHeld,
  TurnInProgress,
  LeaseLost,
  Gone,
  TooLarge,
  InboxFull,
  Unavailable,
  ConnectionFailed,
} from "./errors.js";
export { EventStream, SseDecoder, type RotaEvent, type EventStreamOptions } from "./events.js";
export { Outcome } from "./outcome.js";
export {
  Runner,
  TurnCancelled,
  type CancelReason,
  type Handler,
  type RunnerListener,
  type RunnerOptions,
  type TurnContext,
  type FollowInput,
} from "./runner.js";
export { DEFAULT_RETRY, type RetryPolicy } from "./transport.js";
export type * from "./types.js";
export type { components, paths, operations } from "./generated/openapi.js";
