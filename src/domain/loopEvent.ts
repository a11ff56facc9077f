import { z } from "zod";
import { JsonValue } from "./json.js";
import { ReceiptReason, ReceiptStatus } from "./receipt.js";
import { ReasonCode, TerminalState } from "./terminal.js";

/**
 * Host-facing events of a run. `done` carries state only, never the text again.
 *
 * Text comes twice: `text_delta` as the provider streams it (only when it streams; a retried
 * provider call streams its text again), and then `commentary` (the text of a tool step) or
 * `final` (the answer) as the authoritative whole. A host that shows deltas replaces them with the
 * whole text when it comes; one that shows only whole text ignores the deltas.
 */
export const LoopEvent = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text_delta"), runId: z.string(), step: z.number().int(), delta: z.string() }),
  z.strictObject({ type: z.literal("commentary"), runId: z.string(), step: z.number().int(), text: z.string() }),
  /** The model asked for a call and its tool_call row is durable; it has not started. */
  z.strictObject({
    type: z.literal("tool_call"),
    runId: z.string(),
    step: z.number().int(),
    callId: z.string(),
    toolName: z.string(),
    arguments: z.union([JsonValue, z.string()]),
  }),
  /** The call's start record is durable and its tool is invoked now (after its approval, if it needed one). */
  z.strictObject({
    type: z.literal("tool_started"),
    runId: z.string(),
    step: z.number().int(),
    callId: z.string(),
    toolName: z.string(),
  }),
  /** A call waits for the host's decision (`run.approve` / `run.deny`); its request is durable. */
  z.strictObject({
    type: z.literal("approval_requested"),
    runId: z.string(),
    step: z.number().int(),
    callId: z.string(),
    toolName: z.string(),
    arguments: z.union([JsonValue, z.string()]),
    reason: z.string(),
  }),
  z.strictObject({
    type: z.literal("tool_result"),
    runId: z.string(),
    step: z.number().int(),
    callId: z.string(),
    toolName: z.string(),
    status: ReceiptStatus,
    reason: ReceiptReason.optional(),
    /** What the tool returned, as the ledger holds it: secrets redacted, a large output as its summary. */
    output: JsonValue.optional(),
  }),
  z.strictObject({
    type: z.literal("final"),
    runId: z.string(),
    text: z.string(),
    terminalState: TerminalState,
    /**
     * The model's own text behind a runtime template: present when the run did not complete (the
     * text is then the template, in the run's locale), so a channel can render the template in its
     * own locale. For `completed` the text is the answer itself.
     */
    answer: z.string().optional(),
  }),
  z.strictObject({
    type: z.literal("done"),
    runId: z.string(),
    traceId: z.string(),
    terminalState: TerminalState,
    reason: ReasonCode,
  }),
]);
export type LoopEvent = z.infer<typeof LoopEvent>;
