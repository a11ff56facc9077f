import { sha256 } from "../fingerprint.js";

/**
 * Tool names as agentloop offers them: `<server>__<tool>`, in the charset every provider accepts
 * for function names (`[a-zA-Z0-9_-]`, at most 64 characters). The server prefix keeps two servers'
 * `search` tools apart and tells a reader of the ledger where a receipt came from.
 */

export const MAX_TOOL_NAME_LENGTH = 64;
const SEPARATOR = "__";

/** Every character outside `[a-zA-Z0-9_-]` becomes `_`; an empty result is `mcp`. */
export function sanitizeNamePart(part: string): string {
  const cleaned = part.replace(/[^a-zA-Z0-9_-]/g, "_");
  return cleaned.length > 0 ? cleaned : "mcp";
}

const shortHash = (text: string) => sha256(text).slice(0, 8);

/**
 * The agentloop names of one server's tools, by their MCP names. A name that would be too long, or
 * that sanitises to one already taken, ends in `_` + 8 hex digits of the sha256 of the MCP name, so
 * the mapping is stable across connections and never silently merges two tools.
 */
export function agentloopToolNames(server: string, toolNames: ReadonlyArray<string>): Map<string, string> {
  const prefix = sanitizeNamePart(server);
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const toolName of toolNames) {
    let candidate = `${prefix}${SEPARATOR}${sanitizeNamePart(toolName)}`;
    if (candidate.length > MAX_TOOL_NAME_LENGTH || taken.has(candidate)) {
      const suffix = `_${shortHash(`${server}\u0000${toolName}`)}`;
      candidate = `${candidate.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
    }
    taken.add(candidate);
    names.set(toolName, candidate);
  }
  return names;
}
