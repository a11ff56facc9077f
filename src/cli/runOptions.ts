import type { Environment } from "../services/providers/config.js";
import type { RetryPolicy } from "../services/providers/retry.js";

/**
 * The options of `agentloop run`, shared by the command's definition (runCommand.ts, loaded with
 * the command tree) and its implementation (runCommandImpl.ts, loaded when the command runs).
 */

export interface RunCommandOptions {
  readonly provider?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly db?: string;
  readonly contract?: string;
  readonly json?: boolean;
  /** Commander's `--no-stream` sets this false. */
  readonly stream?: boolean;
  readonly timeoutMs?: number;
  /** For tests: the environment to read keys from (default process.env). */
  readonly env?: Environment;
  /** For tests: the runtime's retry policy. */
  readonly retry?: RetryPolicy;
  /** A workspace: its AGENTS.md/SOUL.md/USER.md and skill catalog join the prompt; the built-in tools act on it. */
  readonly workspace?: string;
  /** Continue this session (its earlier turns are replayed from the ledger). */
  readonly session?: string;
  /** Deliver through the console channel with this policy instead of printing the final text once. */
  readonly policy?: string;
  /** MCP servers whose tools the run may use: command lines to spawn (stdio) or http(s) URLs. */
  readonly mcp?: ReadonlyArray<string>;
  /** Kind overrides for MCP tools, `toolName=kind` by MCP tool name, applied to every `--mcp` server. */
  readonly mcpKind?: ReadonlyArray<string>;
  /** mutate and deliver tools wait for approval; `ask` asks on the terminal, `always`/`never` decide at once. */
  readonly approve?: string;
  /** For tests: where `--approve ask` reads its answers (default stdin). */
  readonly input?: NodeJS.ReadableStream;
}

/** How the console channel delivers a run's messages (`--policy`). */
export const POLICIES = ["final_only", "progress_updates", "silent_tool_status"] as const;
