/**
 * Names for the API's shapes. Each is the schema of the same name in the node's OpenAPI document,
 * through the types generated from it (src/generated/openapi.ts, `npm run generate`).
 */
import type { components } from "./generated/openapi.js";

type Schemas = components["schemas"];

export type AgentView = Schemas["AgentView"];
export type AgentList = Schemas["AgentList"];
export type RegisterAgentRequest = Schemas["RegisterAgentRequest"];
export type ScheduleSpec = Schemas["ScheduleSpec"];
export type AgentHistory = Schemas["AgentHistory"];
export type HistoryEvent = AgentHistory["events"][number];
export type Explanation = Schemas["Explain"];
export type NotificationAccepted = Schemas["NotificationAccepted"];
/** Where a producer's call stands (`GET /v1/calls/{callId}`): `pending`, `answered`, `failed` or `timedOut`. */
export type CallAnswer = Schemas["CallAnswer"];
/** What a notification that is a call says about it (`callId`, `from`, `depth`). */
export type CallInfo = Schemas["CallCarried"];
/** One item of a completion's `send` list: a notification for another agent, a call with `call`. */
export type SendItem = Schemas["Send"];
export type ClaimResponse = Schemas["ClaimResponse"];
/** What a runner is given for one turn: the lease, the agent and the notifications to handle. */
export type Activation = Schemas["Assignment"];
export type ActivationNotification = Activation["notifications"][number];
export type LeaseExtended = Schemas["LeaseExtended"];
/** What `POST /v1/leases/{leaseId}/input` answers: steered notifications, or that the lease was interrupted. */
export type InputAnswer = Schemas["InputAnswer"];
export type ActivationCompleted = Schemas["ActivationCompleted"];
export type ActivationFailed = Schemas["ActivationFailed"];
export type EventData = Schemas["Event"];
export type AdminStats = Schemas["AdminStats"];
export type PoolList = Schemas["PoolList"];
export type Pool = PoolList["pools"][number];
export type RunnerList = Schemas["RunnerList"];
export type RunnerView = RunnerList["runners"][number];
export type RunnerHealthState = Schemas["RunnerHealthState"];
export type DeadLetter = Schemas["DeadLetterList"]["deadLetters"][number];
export type Redriven = Schemas["Redriven"];
export type ErrorBody = Schemas["Error"];
export type TenantView = Schemas["TenantView"];
export type TenantList = Schemas["TenantList"];
export type TenantRequest = Schemas["TenantRequest"];

export type RunnerMode = "notification" | "exploration" | "hybrid";
export type FailAction = "retry" | "cancel" | "discard" | "snooze";
/** What a notification arriving while its agent holds a lease does (docs/api.md, "New input during a turn"). */
export type NewInputPolicy = NonNullable<Schemas["NotificationRequest"]["newInput"]>;
