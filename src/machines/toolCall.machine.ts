import { assign, fromPromise, sendParent, setup } from "xstate";
import type { CallDisposition, ExecutorResult, PlannedCall, ReceiptReason, ToolSettlement } from "../domain/index.js";

/**
 * One tool call: `pending → running → ok | error | timed_out | cancelled`. Spawned by the tool
 * batch, which sends START when a concurrency slot is free. Calls the runtime refused (missing
 * executor, not allowed, unknown tool, invalid arguments) settle as `error` on START without
 * running anything.
 */

export interface ToolCallInput {
  readonly runId: string;
  readonly step: number;
  readonly index: number;
  readonly planned: PlannedCall;
}

export interface ExecuteToolInput {
  readonly runId: string;
  readonly step: number;
  readonly planned: PlannedCall;
}

export interface ToolCallContext extends ToolCallInput {
  readonly settlement: ToolSettlement | null;
}

export type ToolCallEvent = { type: "START" } | { type: "CANCEL" };

/**
 * What the call tells its batch while it runs. Its settlement is its output: the batch learns it
 * from the call's own done event, the last thing a call sends, so nothing reaches a batch that has
 * already ended.
 */
export type ToolCallReport = { type: "CALL_STARTED"; index: number; callId: string; toolName: string };

const REFUSAL_REASON: Record<Exclude<CallDisposition, "run">, ReceiptReason> = {
  executor_missing: "tool_executor_missing",
  not_allowed: "tool_not_allowed",
  unknown_tool: "unknown_tool",
  invalid_arguments: "invalid_arguments",
};

function settle(
  context: ToolCallContext,
  status: ToolSettlement["status"],
  fields: Partial<Pick<ToolSettlement, "reason" | "output" | "evidence" | "startedAt" | "finishedAt">>,
): ToolSettlement {
  return {
    callId: context.planned.call.id,
    toolName: context.planned.call.name,
    inputFingerprint: context.planned.inputFingerprint,
    status,
    output: null,
    evidence: {},
    startedAt: null,
    finishedAt: null,
    ...fields,
  };
}

export const toolCallMachine = setup({
  types: {
    context: {} as ToolCallContext,
    input: {} as ToolCallInput,
    events: {} as ToolCallEvent,
    output: {} as ToolSettlement,
  },
  actors: {
    /** Provided by the runtime: runs the tool's executor; expected failures come back as `status: "error"`. */
    executeTool: fromPromise<ExecutorResult, ExecuteToolInput>(async () => {
      throw new Error("executeTool must be provided by the runtime");
    }),
  },
  guards: {
    dispositionIs: ({ context }, params: { disposition: CallDisposition }) =>
      context.planned.disposition === params.disposition,
    executorSucceeded: (_, params: { result: ExecutorResult }) => params.result.status === "ok",
  },
  actions: {
    refuse: assign({
      settlement: ({ context }) => {
        const disposition = context.planned.disposition as Exclude<CallDisposition, "run">;
        return settle(context, "error", {
          reason: REFUSAL_REASON[disposition],
          output: { error: context.planned.problem ?? REFUSAL_REASON[disposition] },
        });
      },
    }),
    recordResult: assign({
      settlement: ({ context }, params: { result: ExecutorResult }) =>
        settle(context, params.result.status, {
          ...(params.result.status === "error" ? { reason: params.result.reason ?? "tool_error" } : {}),
          output: params.result.output,
          evidence: params.result.evidence,
          startedAt: params.result.startedAt,
          finishedAt: params.result.finishedAt,
        }),
    }),
    recordThrow: assign({
      settlement: ({ context }, params: { error: unknown }) =>
        settle(context, "error", {
          reason: "tool_threw",
          output: { error: params.error instanceof Error ? params.error.message : String(params.error) },
        }),
    }),
    recordTimeout: assign({
      settlement: ({ context }) =>
        settle(context, "timed_out", {
          reason: "timed_out",
          output: { error: `no result within ${context.planned.timeoutMs} ms` },
          evidence: { timeout_ms: context.planned.timeoutMs },
        }),
    }),
    recordCancel: assign({
      settlement: ({ context }, params: { started: boolean }) =>
        settle(context, "cancelled", {
          reason: "cancelled_by_user",
          output: { error: params.started ? "cancelled while running" : "cancelled before it started" },
          evidence: { started: params.started },
        }),
    }),
    reportStarted: sendParent(
      ({ context }): ToolCallReport => ({
        type: "CALL_STARTED",
        index: context.index,
        callId: context.planned.call.id,
        toolName: context.planned.call.name,
      }),
    ),
  },
  delays: {
    toolTimeout: ({ context }) => context.planned.timeoutMs,
  },
}).createMachine({
  id: "toolCall",
  initial: "pending",
  context: ({ input }) => ({ ...input, settlement: null }),
  states: {
    pending: {
      on: {
        START: [
          {
            guard: { type: "dispositionIs", params: { disposition: "executor_missing" } },
            target: "error",
            actions: "refuse",
          },
          {
            guard: { type: "dispositionIs", params: { disposition: "not_allowed" } },
            target: "error",
            actions: "refuse",
          },
          {
            guard: { type: "dispositionIs", params: { disposition: "unknown_tool" } },
            target: "error",
            actions: "refuse",
          },
          {
            guard: { type: "dispositionIs", params: { disposition: "invalid_arguments" } },
            target: "error",
            actions: "refuse",
          },
          { target: "running" },
        ],
        CANCEL: { target: "cancelled", actions: { type: "recordCancel", params: { started: false } } },
      },
    },
    running: {
      entry: "reportStarted",
      invoke: {
        id: "executor",
        src: "executeTool",
        input: ({ context }) => ({ runId: context.runId, step: context.step, planned: context.planned }),
        onDone: [
          {
            guard: { type: "executorSucceeded", params: ({ event }) => ({ result: event.output }) },
            target: "ok",
            actions: { type: "recordResult", params: ({ event }) => ({ result: event.output }) },
          },
          { target: "error", actions: { type: "recordResult", params: ({ event }) => ({ result: event.output }) } },
        ],
        onError: { target: "error", actions: { type: "recordThrow", params: ({ event }) => ({ error: event.error }) } },
      },
      after: { toolTimeout: { target: "timed_out", actions: "recordTimeout" } },
      on: { CANCEL: { target: "cancelled", actions: { type: "recordCancel", params: { started: true } } } },
    },
    ok: { type: "final" },
    error: { type: "final" },
    timed_out: { type: "final" },
    cancelled: { type: "final" },
  },
  output: ({ context }) => context.settlement!,
});
