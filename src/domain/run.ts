import { z } from "zod";
import { CompletionContract } from "./contract.js";
import { ExecutionReceipt } from "./receipt.js";
import { ReasonCode, RunStatus, TerminalState } from "./terminal.js";

/** What every run resolves to, whatever path it took. */
export const AgentRunResult = z.strictObject({
  runId: z.string(),
  traceId: z.string(),
  sessionId: z.string(),
  terminalState: TerminalState,
  terminalReason: ReasonCode,
  finalText: z.string(),
  steps: z.number().int().nonnegative(),
  correctionTurns: z.number().int().nonnegative(),
  receipts: z.array(ExecutionReceipt),
});
export type AgentRunResult = z.infer<typeof AgentRunResult>;

/** The `agent_runs` row. */
export const RunRecord = z.strictObject({
  runId: z.string(),
  sessionId: z.string(),
  workspaceId: z.string().nullable(),
  providerId: z.string().nullable(),
  model: z.string().nullable(),
  apiFamily: z.string().nullable(),
  terminalState: RunStatus,
  contract: CompletionContract,
  traceId: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  failureCode: z.string().nullable(),
  failureDetail: z.string().nullable(),
  /** The named agent the run was started with (`AgentRuntimeConfig.agents`), if any. */
  agentName: z.string().nullable(),
});
export type RunRecord = z.infer<typeof RunRecord>;
