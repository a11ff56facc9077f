import * as Effect from "effect/Effect";
import type * as Tracer from "effect/Tracer";
import type { LedgerWriteInput, PendingEvent, RunCommand, RunReply, ToolSettlement } from "../../domain/index.js";
import { SPAN } from "./spanNames.js";

/**
 * The span each run command makes around its handler: its name, attributes and what it logs
 * before and after. One generic wrapper (`observeRun`'s `command`) reads this table; a command
 * without an entry passes through without a span.
 */

const settlementLog = (step: number, settlement: ToolSettlement) => ({
  step,
  callId: settlement.callId,
  toolName: settlement.toolName,
  status: settlement.status,
  ...(settlement.reason ? { reason: settlement.reason } : {}),
});

type CommandOf<K extends RunCommand["type"]> = Extract<RunCommand, { type: K }>;

/** What a command's span may do around its handler: log before, annotate and log after. */
export interface Observation {
  readonly log: (message: string, fields: Record<string, unknown>) => Effect.Effect<void>;
  readonly annotate: (attributes: Record<string, unknown>) => Effect.Effect<void>;
  readonly started: Effect.Effect<void>;
}

export interface CommandSpan<K extends RunCommand["type"]> {
  readonly name: string;
  readonly kind?: Tracer.SpanKind;
  readonly attributes: (command: CommandOf<K>) => Record<string, unknown>;
  readonly before?: (command: CommandOf<K>, observation: Observation) => Effect.Effect<void>;
  /** Called with the handler's answer (a RunReply or, for EXECUTE, the batch's CALL_SETTLED). */
  readonly after?: (command: CommandOf<K>, reply: unknown, observation: Observation) => Effect.Effect<void>;
  /**
   * The ledger rows the answer says were committed, for the run's metric facts; asked with or
   * without spans and logs (before `after`).
   */
  readonly written?: (
    command: CommandOf<K>,
    reply: unknown,
  ) => ReadonlyArray<Pick<PendingEvent, "type" | "payload">> | undefined;
}

const stepOf = (events: ReadonlyArray<PendingEvent>): Record<string, unknown> => {
  for (const event of events) {
    const step = (event.payload as { step?: unknown } | null)?.step;
    if (typeof step === "number") return { "agentloop.step": step };
  }
  return {};
};

const isReply = <T extends RunReply["type"]>(reply: unknown, type: T): reply is Extract<RunReply, { type: T }> =>
  (reply as { type?: unknown } | undefined)?.type === type;

const appendSpan = <K extends "RECORD_CALLS" | "RECORD_TURN">(): CommandSpan<K> => ({
  name: SPAN.append,
  attributes: ({ events }: LedgerWriteInput) => ({ ...stepOf(events), "agentloop.ledger.rows": events.length }),
  written: ({ events }: LedgerWriteInput, reply) => (isReply(reply, "LEDGER_FAILED") ? undefined : events),
});

/** The commands that make a span, with their attributes and what they log: the rest pass through. */
export const COMMAND_SPANS: { readonly [K in RunCommand["type"]]?: CommandSpan<K> } = {
  OPEN: {
    name: SPAN.open,
    attributes: () => ({}),
    before: (_command, { started }) => started,
  },
  SAMPLE: {
    name: SPAN.provider,
    kind: "client",
    attributes: (command) => ({ "gen_ai.operation.name": "chat", "agentloop.step": command.step }),
    after: (command, reply, { annotate, log }) => {
      if (!isReply(reply, "SAMPLED")) return Effect.void;
      const { outcome } = reply;
      return outcome.type === "response"
        ? Effect.zipRight(
            annotate({
              // An array, as the GenAI conventions say (the OTel bridge exports it JSON-encoded).
              "gen_ai.response.finish_reasons": [outcome.finishReason],
              "agentloop.tool_calls.parsed": outcome.calls.length,
              "agentloop.tool_calls.malformed": outcome.malformed.length,
              "agentloop.anomalies": outcome.anomalies.map((anomaly) => anomaly.code),
              ...(outcome.usage
                ? {
                    "gen_ai.usage.input_tokens": outcome.usage.inputTokens,
                    "gen_ai.usage.output_tokens": outcome.usage.outputTokens,
                  }
                : {}),
            }),
            log("provider.response", {
              step: command.step,
              finishReason: outcome.finishReason,
              parsedToolCalls: outcome.calls.length,
              toolNames: outcome.calls.map((planned) => planned.call.name),
              malformedToolCalls: outcome.malformed.length,
              anomalies: outcome.anomalies.map((anomaly) => anomaly.code),
              textChars: outcome.text.length,
              streamed: outcome.streamed,
            }),
          )
        : Effect.zipRight(
            annotate({ "error.type": outcome.reason }),
            log("provider.failure", { step: command.step, reason: outcome.reason, detail: outcome.message }),
          );
    },
  },
  EXECUTE: {
    name: SPAN.tool,
    attributes: (command) => ({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": command.planned.call.name,
      "gen_ai.tool.call.id": command.planned.call.id,
      "agentloop.step": command.step,
    }),
    after: (_command, reply, { annotate }) => {
      const result = (reply as { result?: { status: string; reason?: string } } | undefined)?.result;
      return result
        ? annotate({
            "agentloop.tool.status": result.status,
            ...(result.reason ? { "error.type": result.reason } : {}),
          })
        : Effect.void;
    },
  },
  RECORD_CALLS: appendSpan(),
  RECORD_TURN: appendSpan(),
  RECORD_RESULTS: {
    name: SPAN.toolResults,
    attributes: (command) => ({ "agentloop.step": command.step, "agentloop.ledger.rows": command.settlements.length }),
    after: (command, reply, { log }) =>
      isReply(reply, "LEDGER_FAILED")
        ? Effect.void
        : Effect.forEach(
            command.settlements,
            (settlement) => log("tool.result", settlementLog(command.step, settlement)),
            {
              discard: true,
            },
          ),
  },
  FINISH: {
    name: SPAN.finish,
    attributes: (command) => ({
      "agentloop.step": command.terminal.steps,
      "agentloop.terminal_state": command.terminal.terminalState,
      "agentloop.terminal_reason": command.terminal.reason,
    }),
    written: (command, reply) =>
      isReply(reply, "LEDGER_FAILED")
        ? undefined
        : [...command.events, { type: "terminal", payload: command.terminal }],
    after: (command, reply, { log }) =>
      isReply(reply, "LEDGER_FAILED")
        ? Effect.void
        : Effect.forEach(
            command.unsettled,
            (planned) =>
              log("tool.result", {
                step: command.terminal.steps,
                callId: planned.call.id,
                toolName: planned.call.name,
                status: "cancelled",
                reason: command.terminal.reason === "cancelled_by_user" ? "cancelled_by_user" : "interrupted",
              }),
            { discard: true },
          ),
  },
};
