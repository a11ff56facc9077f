import type { ContextMessage, ToolCall } from "../../../domain/index.js";

/**
 * The pairing every tool-calling wire protocol demands, enforced once for all serializers: each
 * assistant tool call is followed by exactly one result for it, in call order, and no result
 * stands without its call. A call without a recorded result gets a synthetic error result (never
 * a dangling call); a result without its call becomes plain user text (never an orphan).
 */

export type ToolResultMessage = Extract<ContextMessage, { role: "tool" }>;

export type PairedMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | {
      readonly role: "assistant";
      readonly content: string;
      readonly toolCalls: ReadonlyArray<ToolCall>;
      /** One per call, in call order. */
      readonly results: ReadonlyArray<ToolResultMessage>;
    };

export const MISSING_RESULT_TEXT = "error: no result was recorded for this call";

/** A result whose call is not in the history, as text the model can still read. */
export function orphanResultText(result: ToolResultMessage): string {
  return `[result of tool call ${result.callId} (${result.toolName}), whose call is not in the history${result.isError ? ", an error" : ""}]\n${result.content}`;
}

export function pairToolMessages(messages: ReadonlyArray<ContextMessage>): PairedMessage[] {
  const paired: PairedMessage[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index]!;
    index += 1;
    if (message.role === "tool") {
      paired.push({ role: "user", content: orphanResultText(message) });
      continue;
    }
    if (message.role !== "assistant") {
      paired.push({ role: message.role, content: message.content });
      continue;
    }
    const calls = message.toolCalls ?? [];
    const following: ToolResultMessage[] = [];
    while (index < messages.length && messages[index]!.role === "tool") {
      following.push(messages[index] as ToolResultMessage);
      index += 1;
    }
    const results = calls.map((call): ToolResultMessage => {
      const at = following.findIndex((result) => result.callId === call.id);
      if (at < 0) {
        return { role: "tool", callId: call.id, toolName: call.name, content: MISSING_RESULT_TEXT, isError: true };
      }
      return following.splice(at, 1)[0]!;
    });
    paired.push({ role: "assistant", content: message.content, toolCalls: calls, results });
    for (const orphan of following) paired.push({ role: "user", content: orphanResultText(orphan) });
  }
  return paired;
}

/** The arguments as the wire's JSON string: a raw (non-JSON) argument string is sent as it came. */
export function argumentsText(call: ToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}
