import type { ApprovalRecord, JsonValue, LedgerEvent } from "../../domain/index.js";

export const clip = (text: string, max = 240) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

type Payload = Record<string, JsonValue>;
const payloadOf = (event: LedgerEvent): Payload =>
  event.payload && typeof event.payload === "object" && !Array.isArray(event.payload) ? (event.payload as Payload) : {};
const str = (value: JsonValue | undefined) => (typeof value === "string" ? value : JSON.stringify(value ?? null));

/** One line describing a ledger event for the timeline. */
export function describeEvent(event: LedgerEvent): string {
  const payload = payloadOf(event);
  switch (event.type) {
    case "user_input":
      return `${payload.origin === "runtime_correction" ? "runtime correction" : "user"}: ${clip(str(payload.text))}`;
    case "assistant_output":
      return `assistant ${str(payload.role)} (step ${str(payload.step)}, finish ${str(payload.finishReason)}): ${clip(str(payload.text))}`;
    case "tool_call":
      return `call ${str(payload.callId)} → ${str(payload.toolName)}(${clip(str(payload.arguments), 120)})`;
    case "tool_result":
      return `result ${str(payload.callId)} ${str(payload.toolName)}: ${str(payload.status)} ${clip(str(payload.output), 120)}`;
    case "provider_anomaly":
      return `provider anomaly ${str(payload.code)}: ${clip(str(payload.detail))}`;
    case "terminal":
      return `terminal ${str(payload.terminalState)}/${str(payload.reason)}`;
  }
}

/**
 * One line for a call's approval (an `agent_approvals` request and its decision, if any): who
 * decided what, when, with what scope — shown beside the call it decided.
 */
export function describeApproval(record: ApprovalRecord): string {
  const requested = `approval requested ${record.requestedAt}${record.reason ? ` (${clip(record.reason, 120)})` : ""}`;
  const { decision } = record;
  if (decision === null) return `${requested}; no decision`;
  if (decision.decision === "denied") {
    return `${requested}; denied by ${decision.decidedBy} at ${decision.decidedAt}${decision.message ? `: ${clip(decision.message, 120)}` : ""}`;
  }
  const edited = decision.arguments === undefined ? "" : `, arguments edited to ${clip(str(decision.arguments), 120)}`;
  return `${requested}; approved by ${decision.decidedBy} at ${decision.decidedAt}, scope ${decision.scope}${edited}`;
}
