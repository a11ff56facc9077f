/**
 * agentloop — the public API. What is not exported here or from a subpath
 * (`agentloop/tools`, `agentloop/providers`, `agentloop/testing`, `agentloop/machines`) is internal.
 */

// What a run is judged by, and what it produces.
export {
  AgentRunResult,
  CompletionContract,
  type CompletionContractInput,
  ContextMessage,
  EvidenceMode,
  ExecutionReceipt,
  type JsonValue,
  LedgerEvent,
  LoopEvent,
  ReasonCode,
  ReceiptStatus,
  RunRecord,
  RunStatus,
  TerminalState,
  ToolKind,
} from "./domain/index.js";
export type { RunListFilter } from "./persistence/AgentRunStore.js";
export { LedgerError } from "./persistence/AgentRunStore.js";
export { DatabaseError } from "./persistence/database.js";
// The runtime: runs as XState actors over one ledger.
export {
  AgentRuntime,
  type AgentRuntimeConfig,
  type LedgerReader,
  type RunActor,
  type RunHandle,
  type StartRunOptions,
} from "./runtime/AgentRuntime.js";
export type { ActiveRun, RunRegistry, TranscriptStore } from "./runtime/stores.js";
// Channels: delivering a run's messages to people.
export type { Channel } from "./services/channels/Channel.js";
export { consoleChannel } from "./services/channels/console.js";
export { outboxChannel } from "./services/channels/outbox.js";
export { sseHandler } from "./services/channels/sse.js";
export { webhookChannel } from "./services/channels/webhook.js";
// Observability.
export { otelTracingLayer } from "./services/observability/otel.js";
export { metricsHandler } from "./services/observability/prometheus.js";
// Providers (the implementations: agentloop/providers).
export { type Provider, ProviderError, type ProviderRequest } from "./services/providers/Provider.js";
export type { RetryPolicy } from "./services/providers/retry.js";
export { type ChannelRoute, createRouter } from "./services/router.js";
export {
  SessionRunner,
  type SessionRunnerOptions,
  type TurnHandle,
  type TurnOptions,
} from "./services/sessionRunner.js";
// Tools a host defines (built-in tools: agentloop/tools).
export {
  defineTool,
  type JsonSchemaInput,
  jsonSchemaInput,
  type StandardSchemaV1,
  type ToolContext,
  type ToolDefinition,
  type ToolExecution,
  type ToolInputSchema,
  type ToolResult,
} from "./services/tools/Tool.js";
