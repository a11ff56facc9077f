import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import * as Data from "effect/Data";
import { errorText } from "../../../domain/errorText.js";
import type { JsonValue, ToolKind } from "../../../domain/index.js";
import { canonicalJson, sha256 } from "../fingerprint.js";
import { type AnyToolDefinition, defineTool, type JsonSchemaValidator, jsonSchemaInput } from "../Tool.js";
import { connect, INVOCATION_META_KEY, type McpConnection, type McpServerAddress } from "./connection.js";
import { compileInputSchema } from "./inputSchema.js";
import { mcpToolKind } from "./kinds.js";
import { agentloopToolNames } from "./naming.js";
import { baseEvidence, failureOf, type McpCallFacts, resultOf } from "./results.js";

export type { McpServerAddress } from "./connection.js";

export interface McpToolsSettings {
  /** Prefix of the tool names and the server name in receipts (default: the name the server reports). */
  readonly name?: string | undefined;
  /**
   * Kinds by MCP tool name, overriding what the annotations say. Hints may still make a tool more
   * cautious: a host `observe` for a tool the server does not declare read-only becomes `mutate`.
   */
  readonly kinds?: Readonly<Record<string, ToolKind>> | undefined;
  /** Offer only these MCP tools (by their MCP names); default all. */
  readonly include?: ReadonlyArray<string> | undefined;
  /** Each tool's timeout (the runtime cancels the call after it; default the runtime's tool timeout). */
  readonly timeoutMs?: number | undefined;
  /** How long connecting and `initialize` may take (default 30 s). */
  readonly connectTimeoutMs?: number | undefined;
}

/** `mcpTools`' one argument: where the server is, and how its tools are offered. */
export type McpToolsOptions = McpServerAddress & McpToolsSettings;

export interface McpServerFacts {
  /** The name in tool prefixes and receipts: `options.name`, else the server's own. */
  readonly name: string;
  readonly version: string;
  readonly protocolVersion: string | null;
  readonly transport: "stdio" | "streamable-http";
}

/** A listed tool that is not offered: its arguments could not be checked at all. */
export interface McpRefusedTool {
  /** The MCP name. */
  readonly tool: string;
  /** One line: which tool, and why its input schema cannot be used. */
  readonly reason: string;
}

/** An offered tool whose schema points at documents agentloop does not fetch: those places accept anything. */
export interface McpPartlyCheckedTool {
  /** The MCP name. */
  readonly tool: string;
  /** agentloop's name. */
  readonly name: string;
  /** The references (resolved) that were not followed. */
  readonly unresolvedRefs: ReadonlyArray<string>;
}

/** One connected server's tools; close it (or `await using` it) when the runs that use it are done. */
export interface McpToolset {
  readonly tools: ReadonlyArray<AnyToolDefinition>;
  readonly server: McpServerFacts;
  /** agentloop's name for each MCP tool name (refused tools included). */
  readonly names: ReadonlyMap<string, string>;
  /** Tools the server lists whose input schema cannot be compiled: not offered, never called unchecked. */
  readonly refused: ReadonlyArray<McpRefusedTool>;
  /** Offered tools checked in every part but their unresolvable `$ref`s. */
  readonly partlyChecked: ReadonlyArray<McpPartlyCheckedTool>;
  /** The stdio child's pid while it runs (null over HTTP). */
  readonly pid: () => number | null;
  /** Ends the session; a stdio child gets EOF, then SIGTERM, then SIGKILL. Later calls are error receipts. */
  readonly close: () => Promise<void>;
  readonly [Symbol.asyncDispose]: () => Promise<void>;
}

/** Why `mcpTools` could not hand out tools. */
export class McpToolsError extends Data.TaggedError("McpToolsError")<{
  readonly reason: "invalid_options" | "connect_failed" | "list_failed";
  readonly message: string;
}> {}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/**
 * The SDK's own per-request timeout (60 s by default) would end a call before a longer agentloop
 * timeout does, as an error instead of `timed_out`; the runtime's signal is the clock that counts,
 * so the SDK's is only a far backstop (the largest a Node timer takes).
 */
const SDK_BACKSTOP_TIMEOUT_MS = 2_147_483_647;

function packageVersion(): string {
  try {
    const parsed = JSON.parse(readFileSync(new URL("../../../../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof parsed.version === "string" ? parsed.version : "unknown";
  } catch {
    return "unknown";
  }
}

const messageOf = (error: unknown) => errorText(error);

function checkOptions(options: McpToolsOptions): void {
  const fail = (message: string) => {
    throw new McpToolsError({ reason: "invalid_options", message });
  };
  if ("command" in options) {
    if (typeof options.command !== "string" || options.command.trim() === "") fail("mcpTools: command is empty");
  } else if ("url" in options) {
    const url = String(options.url);
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) fail(`mcpTools: ${url} is not an http(s) URL`);
  } else {
    fail("mcpTools: give either { command, args?, env? } or { url }");
  }
  for (const key of ["timeoutMs", "connectTimeoutMs"] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      fail(`mcpTools: ${key} must be a positive integer`);
  }
}

const inputSchemaOf = (tool: McpTool): Record<string, unknown> =>
  typeof tool.inputSchema === "object" && tool.inputSchema !== null && tool.inputSchema.type === "object"
    ? { ...tool.inputSchema }
    : { type: "object" };

const jsonOf = (value: unknown): JsonValue =>
  value === undefined ? null : (JSON.parse(canonicalJson(value)) as JsonValue);

function toolDefinition(
  schema: Record<string, unknown>,
  validate: JsonSchemaValidator<Record<string, unknown>>,
  connection: McpConnection,
  server: McpServerFacts,
  tool: McpTool,
  name: string,
  options: McpToolsOptions,
): AnyToolDefinition {
  const annotations = jsonOf(tool.annotations);
  return defineTool<Record<string, unknown>>({
    name,
    description: tool.description ?? tool.annotations?.title ?? tool.title ?? "",
    kind: mcpToolKind(tool.annotations, options.kinds?.[tool.name]),
    input: jsonSchemaInput(schema, validate),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    execute: async (args, context) => {
      const invocation = randomUUID();
      const facts = (requestId: string | number | null): McpCallFacts => ({
        server: server.name,
        serverVersion: server.version,
        protocolVersion: server.protocolVersion,
        tool: tool.name,
        requestId,
        argumentsSha256: sha256(canonicalJson(args)),
        annotations,
      });
      const gone = connection.closedBecause();
      if (gone) return failureOf(facts(null), `${server.name}: ${gone}`);
      // The runtime's own receipt for a call that times out or is cancelled carries these facts too.
      context.noteEvidence?.(baseEvidence(facts(null)));
      connection.onRequestId(invocation, (id) => context.noteEvidence?.({ mcp_request_id: id }));
      try {
        const result = await connection.client.callTool(
          { name: tool.name, arguments: args, _meta: { [INVOCATION_META_KEY]: invocation } },
          undefined,
          { signal: context.signal, timeout: SDK_BACKSTOP_TIMEOUT_MS },
        );
        return resultOf(facts(connection.takeRequestId(invocation)), result as Parameters<typeof resultOf>[1]);
      } catch (error) {
        const requestId = connection.takeRequestId(invocation);
        const why = connection.closedBecause();
        const problem =
          /ZodError/.test(String((error as { name?: unknown }).name)) || error instanceof SyntaxError
            ? `${server.name} answered ${tool.name} with a malformed result: ${messageOf(error).replace(/\s+/g, " ")}`
            : why
              ? `${server.name}: ${why} during ${tool.name}`
              : `${server.name} failed ${tool.name}: ${messageOf(error)}`;
        return failureOf(facts(requestId), problem);
      }
    },
  });
}

async function listAll(connection: McpConnection, timeoutMs: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await connection.client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * Connects to an MCP server (stdio child or streamable HTTP), lists its tools and turns each into a
 * ToolDefinition named `<server>__<tool>`: the server's JSON Schema as input schema (checked with
 * ajv before the call; see inputSchema.ts for references it cannot follow), the kind from its annotations unless the host overrides it, and receipts
 * carrying the server, protocol version, JSON-RPC id, hashes, `isError`, annotations and any stable
 * id of the structured result. A timeout or a cancelled run sends `notifications/cancelled`; a
 * server that dies mid-call leaves an error receipt. Rejects with McpToolsError.
 */
export async function mcpTools(options: McpToolsOptions): Promise<McpToolset> {
  checkOptions(options);
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const where = "command" in options ? options.command : String(options.url);
  let connection: McpConnection;
  try {
    connection = await connect(options, { name: "agentloop", version: packageVersion() }, connectTimeoutMs);
  } catch (error) {
    throw new McpToolsError({
      reason: "connect_failed",
      message: `cannot connect to the MCP server ${where}: ${messageOf(error)}`,
    });
  }
  const info = connection.client.getServerVersion();
  const server: McpServerFacts = {
    name: options.name ?? info?.name ?? "mcp",
    version: info?.version ?? "unknown",
    protocolVersion: connection.protocolVersion(),
    transport: connection.transportName,
  };
  let listed: McpTool[];
  try {
    listed = await listAll(connection, connectTimeoutMs);
  } catch (error) {
    await connection.close();
    throw new McpToolsError({
      reason: "list_failed",
      message: `the MCP server ${server.name} did not list its tools: ${messageOf(error)}`,
    });
  }
  const offered = options.include ? listed.filter((tool) => options.include!.includes(tool.name)) : listed;
  const names = agentloopToolNames(
    server.name,
    offered.map((tool) => tool.name),
  );
  const { AjvJsonSchemaValidator } = await import("@modelcontextprotocol/sdk/validation/ajv");
  const shared = new AjvJsonSchemaValidator();
  const fresh = () => new AjvJsonSchemaValidator();
  const tools: AnyToolDefinition[] = [];
  const refused: McpRefusedTool[] = [];
  const partlyChecked: McpPartlyCheckedTool[] = [];
  for (const tool of offered) {
    const name = names.get(tool.name)!;
    const schema = inputSchemaOf(tool);
    const check = compileInputSchema(schema, shared, fresh);
    if (!check.ok) {
      refused.push({ tool: tool.name, reason: `${tool.name} is not offered: ${check.reason}` });
      continue;
    }
    if (check.unresolvedRefs.length > 0) {
      partlyChecked.push({ tool: tool.name, name, unresolvedRefs: check.unresolvedRefs });
    }
    tools.push(toolDefinition(schema, check.validate, connection, server, tool, name, options));
  }
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= connection.close();
    return closing;
  };
  return {
    tools,
    server,
    names,
    refused,
    partlyChecked,
    pid: connection.pid,
    close,
    [Symbol.asyncDispose]: close,
  };
}
