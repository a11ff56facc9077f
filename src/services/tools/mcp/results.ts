import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type JsonValue, STABLE_ID_KEYS } from "../../../domain/index.js";
import { canonicalJson, sha256 } from "../fingerprint.js";
import type { ToolResult } from "../Tool.js";

/** What every receipt of an MCP call carries, whatever the call's outcome. */
export interface McpCallFacts {
  readonly server: string;
  readonly serverVersion: string;
  readonly protocolVersion: string | null;
  readonly tool: string;
  readonly requestId: string | number | null;
  readonly argumentsSha256: string;
  readonly annotations: JsonValue;
}

type Evidence = Record<string, JsonValue>;

/** The facts of a call as receipt evidence; noted before the call goes out, so even a call that never answers has them. */
export function baseEvidence(facts: McpCallFacts): Evidence {
  return {
    mcp_server: facts.server,
    mcp_server_version: facts.serverVersion,
    mcp_protocol_version: facts.protocolVersion,
    mcp_tool: facts.tool,
    mcp_request_id: facts.requestId,
    mcp_arguments_sha256: facts.argumentsSha256,
    mcp_annotations: facts.annotations,
  };
}

const base64Bytes = (data: string) => Buffer.from(data, "base64").byteLength;

/**
 * One content block as the model and the ledger see it. Text and links stay as they are; binary
 * payloads (images, audio, blobs) become their size and hash: the model cannot read base64 in a
 * tool result, and the ledger should not hold it.
 */
function summarizeBlock(block: CallToolResult["content"][number]): JsonValue {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
    case "audio":
      return { type: block.type, mimeType: block.mimeType, bytes: base64Bytes(block.data), sha256: sha256(block.data) };
    case "resource": {
      const { resource } = block;
      const head = {
        type: "resource",
        uri: resource.uri,
        ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
      };
      return "text" in resource
        ? { ...head, text: resource.text }
        : { ...head, bytes: base64Bytes(resource.blob), sha256: sha256(resource.blob) };
    }
    default:
      return JSON.parse(canonicalJson(block)) as JsonValue;
  }
}

/**
 * Stable ids the structured result names at its top level under one of the DELIVER keys
 * (`message_id`, `messageId`, `commit_id` …): copied into the evidence so that a DELIVER contract
 * can be met by an MCP tool the host declared `deliver`. Blank strings are no id.
 */
function stableIds(structured: Record<string, unknown> | undefined): Evidence {
  if (!structured) return {};
  const ids: Evidence = {};
  for (const key of STABLE_ID_KEYS) {
    const value = structured[key];
    if (typeof value === "string" && value.trim().length > 0) ids[key] = value;
    else if (typeof value === "number" && Number.isFinite(value)) ids[key] = value;
  }
  return ids;
}

/** A result the server sent: `isError` is an `error` receipt, anything else `ok`. */
export function resultOf(facts: McpCallFacts, result: CallToolResult): ToolResult {
  const isError = result.isError === true;
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  const output: Record<string, JsonValue> = { content: result.content.map(summarizeBlock) };
  if (structured !== undefined) output.structuredContent = JSON.parse(canonicalJson(structured)) as JsonValue;
  if (isError) output.isError = true;
  return {
    status: isError ? "error" : "ok",
    output,
    evidence: {
      ...baseEvidence(facts),
      mcp_result_sha256: sha256(canonicalJson(result.content)),
      mcp_is_error: isError,
      ...(isError ? {} : stableIds(structured)),
    },
  };
}

/** A call that produced no result (server gone, protocol error, malformed answer): an `error` receipt. */
export function failureOf(facts: McpCallFacts, problem: string): ToolResult {
  return {
    status: "error",
    output: { error: problem },
    evidence: { ...baseEvidence(facts), mcp_result_sha256: null, mcp_is_error: null },
  };
}
