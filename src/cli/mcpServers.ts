import { ToolKind } from "../domain/index.js";
import { parseMcpFlag } from "../services/tools/mcp/commandLine.js";
import type { McpToolset } from "../services/tools/mcp/mcpTools.js";
import type { AnyToolDefinition } from "../services/tools/Tool.js";
import { CliFailure } from "./output.js";

/**
 * `agentloop run --mcp <server> --mcp-kind <tool=kind>`: the MCP servers of one run. Bad flags and
 * servers that cannot be reached are one line and exit code 2, before any run starts.
 */

export interface OpenMcpServers {
  readonly tools: ReadonlyArray<AnyToolDefinition>;
  /** Closes every server opened so far (stdio children: EOF, SIGTERM, SIGKILL). */
  readonly close: () => Promise<void>;
}

export function parseMcpKinds(flags: ReadonlyArray<string>): Record<string, ToolKind> {
  const kinds: Record<string, ToolKind> = {};
  for (const flag of flags) {
    const at = flag.lastIndexOf("=");
    const name = flag.slice(0, at).trim();
    const kind = ToolKind.safeParse(flag.slice(at + 1).trim());
    if (at <= 0 || !name || !kind.success) {
      throw new CliFailure(`--mcp-kind ${flag}: expected <tool>=<${ToolKind.options.join("|")}>`, 2);
    }
    kinds[name] = kind.data;
  }
  return kinds;
}

/** Connects to each server in turn; `opened` sees every toolset as soon as it exists, so a signal can close it. */
export async function openMcpServers(
  servers: ReadonlyArray<string>,
  kindFlags: ReadonlyArray<string>,
  opened: (toolset: McpToolset) => void,
): Promise<ReadonlyArray<AnyToolDefinition>> {
  if (servers.length === 0) {
    if (kindFlags.length > 0) throw new CliFailure("--mcp-kind needs at least one --mcp server", 2);
    return [];
  }
  const kinds = parseMcpKinds(kindFlags);
  const addresses = servers.map((server) => {
    try {
      return parseMcpFlag(server);
    } catch (error) {
      throw new CliFailure(`--mcp ${server}: ${(error as Error).message}`, 2);
    }
  });
  const { mcpTools, McpToolsError } = await import("../services/tools/mcp/mcpTools.js");
  const tools: AnyToolDefinition[] = [];
  for (const address of addresses) {
    const toolset = await mcpTools({ ...address, kinds }).catch((error: unknown) => {
      throw error instanceof McpToolsError ? new CliFailure(error.message, 2) : error;
    });
    opened(toolset);
    const taken = new Set(tools.map((tool) => tool.name));
    const clash = toolset.tools.find((tool) => taken.has(tool.name));
    if (clash) {
      throw new CliFailure(
        `two --mcp servers offer ${clash.name}: servers need distinct names (${toolset.server.name})`,
        2,
      );
    }
    tools.push(...toolset.tools);
  }
  return tools;
}
