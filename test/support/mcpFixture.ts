/**
 * The fixture MCP server (test/fixtures/mcp/server.mjs, a real process speaking MCP over stdio with
 * the same SDK): where it is, how to start its toolset, and what its log says it saw.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type McpToolset, type McpToolsSettings, mcpTools } from "../../src/services/tools/mcp/mcpTools.js";
import type { AnyToolDefinition } from "../../src/services/tools/Tool.js";

export const FIXTURE_SERVER = fileURLToPath(new URL("../fixtures/mcp/server.mjs", import.meta.url));

export interface FixtureLogEntry {
  readonly event: "call" | "cancelled";
  readonly tool: string;
  readonly requestId: number | string;
  readonly reason?: string;
  readonly pid: number;
}

export function readFixtureLog(file: string): FixtureLogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as FixtureLogEntry);
}

/** The fixture server over stdio, logging to `logFile`; its stderr (SDK warnings) is dropped. */
export function fixtureToolset(
  logFile: string,
  settings: McpToolsSettings & { readonly args?: ReadonlyArray<string>; readonly pidFile?: string } = {},
): Promise<McpToolset> {
  const { args = [], pidFile, ...rest } = settings;
  return mcpTools({
    command: process.execPath,
    args: [FIXTURE_SERVER, ...args],
    env: { MCP_FIXTURE_LOG: logFile, ...(pidFile ? { MCP_FIXTURE_PID: pidFile } : {}) },
    stderr: "ignore",
    ...rest,
  });
}

export function toolNamed(toolset: McpToolset, name: string): AnyToolDefinition {
  const tool = toolset.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${toolset.tools.map((candidate) => candidate.name).join(", ")}`);
  return tool;
}

/** Alive and not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

export async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
