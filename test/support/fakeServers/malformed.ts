/**
 * Replies whose body breaks the wire protocol in ways the SDKs do not catch themselves: a body or
 * an event of the wrong shape (reading it throws a TypeError), and tool arguments nested deeper
 * than any value can be walked recursively.
 */
import type { ProviderCase } from "./cases.js";
import { type ScriptedReply, sseFrame } from "./shared.js";

/** JSON nested `depth` levels deep (arrays), too deep to build as a value and stringify. */
export const deepJson = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

const PLACEHOLDER = "@@DEEP@@";

/** One `lookup` call whose argument `i` nests `depth` levels deep, streamed or whole. */
export function deepArgumentsReply(providerCase: ProviderCase, stream: boolean, depth: number): ScriptedReply {
  const deep = deepJson(depth);
  const call = { id: "call_deep", name: "lookup", arguments: `{"i":${deep}}` };
  if (stream) return providerCase.wire.stream({ calls: [call] });
  if (providerCase.name !== "anthropic") return providerCase.wire.json({ calls: [call] });
  // Anthropic sends `tool_use.input` as an object: the deep value is spliced into the JSON text.
  const reply = providerCase.wire.json({ calls: [{ ...call, arguments: `{"i":"${PLACEHOLDER}"}` }] });
  if (reply.kind !== "json") throw new Error("expected a JSON reply");
  return { ...reply, raw: JSON.stringify(reply.body).replace(`"${PLACEHOLDER}"`, deep) };
}

/** A whole body of the wrong shape: `null` where the completion object belongs. */
export const nullBody: ScriptedReply = { kind: "json", body: null };

/** A stream whose event has the wrong shape (a call fragment that is `null`, a block without its content). */
export function wrongShapeStream(providerCase: ProviderCase): ScriptedReply {
  const frame =
    providerCase.name === "openai-chat"
      ? sseFrame({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { tool_calls: [null] } }] })
      : providerCase.name === "openai-responses"
        ? sseFrame(
            { type: "response.output_item.added", output_index: 0, sequence_number: 1 },
            "response.output_item.added",
          )
        : sseFrame({ type: "content_block_start", index: 0 }, "content_block_start");
  return { kind: "sse", frames: [frame] };
}
