import { z } from "zod";
import { JsonValue } from "./json.js";
import { ReceiptReason, ReceiptStatus } from "./receipt.js";
import { ReasonCode, TerminalState } from "./terminal.js";

/** Host-facing events of a run. `done` carries state only, never the text again. */
export const LoopEvent = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("commentary"), runId: z.string(), step: z.number().int(), text: z.string() }),
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
