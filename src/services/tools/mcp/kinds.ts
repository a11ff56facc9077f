import type { ToolKind } from "../../../domain/index.js";

/** The behaviour hints of an MCP tool (the spec's ToolAnnotations), as far as a kind depends on them. */
export interface McpToolHints {
  readonly readOnlyHint?: boolean | undefined;
  readonly destructiveHint?: boolean | undefined;
}

/**
 * What the server's hints say about a tool: `observe` only when it declares itself read-only and
 * not destructive; everything else writes (`mutate`). No hints at all is `mutate`: MCP's defaults
 * are readOnlyHint=false, destructiveHint=true. A server can never make a tool `deliver`.
 */
export function declaredKind(hints: McpToolHints | undefined): ToolKind {
  return hints?.readOnlyHint === true && hints.destructiveHint !== true ? "observe" : "mutate";
}

/**
 * The kind agentloop gives an MCP tool. Without a host override it is the declared kind. With one,
 * the host's kind stands, except that a host `observe` for a tool the server says writes becomes
 * `mutate`: hints may only make a tool more cautious than the host said (an observe tool is re-run
 * after a crash and satisfies OBSERVE contracts), never less — so a host `mutate` or `deliver` is
 * kept even when the server claims read-only.
 */
export function mcpToolKind(hints: McpToolHints | undefined, hostKind: ToolKind | undefined): ToolKind {
  const declared = declaredKind(hints);
  if (hostKind === undefined) return declared;
  return hostKind === "observe" && declared !== "observe" ? "mutate" : hostKind;
}
