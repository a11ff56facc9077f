/**
 * agentloop — the public API. What is not exported here or from a subpath
 * (`agentloop/tools`, `agentloop/providers`, `agentloop/testing`, `agentloop/machines`) is internal.
 */

// What a run is judged by, and what it produces.
export {
  AgentRunResult,
  ApprovalScope,
  CompletionContract,
  type CompletionContractInput,
  ContextMessage,
  EvidenceMode,
  ExecutionReceipt,
  HostApprovalDecision,
  type JsonValue,
  LedgerEvent,
  LoopEvent,
  /** Evidence keys of which a `mutate` contract needs one on a mutating tool's `ok` receipt. */
  MUTATION_EVIDENCE_KEYS,
  ReasonCode,
  ReceiptStatus,
  RunRecord,
  RunStatus,
  /** Evidence keys naming a stable external id, of which a `deliver` contract needs one. */
  STABLE_ID_KEYS,
  TerminalState,
  ToolKind,
} from "./domain/index.js";
// Channels: delivering a run's messages to people.
export type { Channel } from "./host/channels/Channel.js";
export { consoleChannel } from "./host/channels/console.js";
export { outboxChannel } from "./host/channels/outbox.js";
export { sseHandler } from "./host/channels/sse.js";
export { webhookChannel } from "./host/channels/webhook.js";
// A run as a child actor of a host's own statechart.
export { type AgentRunRequest, fromAgentRun, type ResumeAgentRun } from "./host/fromAgentRun.js";
export { type ChannelRoute, makeRouter } from "./host/router.js";
export {
  SessionRunner,
  type SessionRunnerOptions,
  type TurnHandle,
  type TurnOptions,
} from "./host/sessionRunner.js";
// A run as the AI SDK's UI Message Stream (what `useChat` reads).
export {
  type RunMessageMetadata,
  type RunUIMessageChunk,
  toUIMessageStream,
  toUIMessageStreamResponse,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessageStreamOptions,
  type UIStreamRun,
} from "./host/uiMessageStream.js";
export type { AgentRunControl, AgentRunNotice } from "./machines/agentRun/machine.js";
export type { RunListFilter } from "./persistence/AgentRunStore.js";
export { LedgerError } from "./persistence/AgentRunStore.js";
export { DatabaseError } from "./persistence/database.js";
// The runtime: runs as XState actors over one ledger.
export {
  type AgentDefinition,
  AgentRuntime,
  type AgentRuntimeConfig,
  type ApproveOptions,
  type DenyOptions,
  type DisposeOptions,
  type EnqueueRunOptions,
  type LedgerReader,
  type ResumeRunOptions,
  type RunEvents,
  type RunHandle,
  type StartRunOptions,
} from "./runtime/AgentRuntime.js";
export type { RunSnapshotView, RunView } from "./runtime/runView.js";
export type { ActiveRun, RunRegistry, TranscriptStore } from "./runtime/stores.js";
// Observability.
export { otelTracingLayer } from "./services/observability/otel.js";
export { metricsHandler } from "./services/observability/prometheus.js";
// Providers (the implementations: agentloop/providers).
export {
  defineProvider,
  type ProviderDefinition,
  type ProviderReply,
} from "./services/providers/defineProvider.js";
export { type Provider, ProviderError, type ProviderRequest } from "./services/providers/Provider.js";
export type { RetryPolicy } from "./services/providers/retry.js";
// Which calls wait for approval.
export type { ApprovalPolicy } from "./services/tools/approvalPolicy.js";
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
  type ToolOutput,
  type ToolResult,
} from "./services/tools/Tool.js";
// The system prompt every run sends unless told otherwise, and how a host changes it.
export { BASE_PROMPT, type SystemPrompt } from "./services/workspace/prompt.js";
