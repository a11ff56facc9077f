import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import * as Either from "effect/Either";
import { type AgentRunResult, type EvidenceMode, EvidenceMode as EvidenceModes } from "../domain/index.js";
import { channelMessageSender } from "../host/channels/Channel.js";
import { consoleChannel } from "../host/channels/console.js";
import { makeRouter } from "../host/router.js";
import { SessionRunner } from "../host/sessionRunner.js";
import { AgentRuntime } from "../runtime/AgentRuntime.js";
import { makeProvider, type ProviderSelection, resolveProviderConfig } from "../services/providers/config.js";
import { builtinTools } from "../services/tools/builtin/index.js";
import type { McpToolset } from "../services/tools/mcp/mcpTools.js";
import { buildSystemPrompt } from "../services/workspace/prompt.js";
import { scanSkills } from "../services/workspace/skills.js";
import { approveModeOf, decideApprovals } from "./approvalPrompt.js";
import { DEFAULT_DB } from "./dbOption.js";
import { openMcpServers } from "./mcpServers.js";
import { CliFailure, type CliIO, terminalText } from "./output.js";
import { POLICIES, type RunCommandOptions } from "./runOptions.js";
import { closeOnShutdown } from "./shutdown.js";

/**
 * The implementation of `agentloop run`, loaded only when the command runs (src/cli/runCommand.ts
 * holds the command's definition and loads this module from its action; the options both share are
 * src/cli/runOptions.ts, so this module imports nothing back from the definition).
 */

function policyOf(name: string | undefined): (typeof POLICIES)[number] | undefined {
  if (name === undefined) return undefined;
  if (!(POLICIES as ReadonlyArray<string>).includes(name)) {
    throw new CliFailure(`unknown policy "${name}": expected one of ${POLICIES.join(", ")}`, 2);
  }
  return name as (typeof POLICIES)[number];
}

function contractOf(name: string | undefined): { evidenceMode: EvidenceMode; source: "caller" } | undefined {
  if (name === undefined) return undefined;
  const parsed = EvidenceModes.safeParse(name);
  if (!parsed.success) {
    throw new CliFailure(`unknown contract "${name}": expected one of ${EvidenceModes.options.join(", ")}`, 2);
  }
  return { evidenceMode: parsed.data, source: "caller" };
}

/** The provider the command's flags and environment select; a configuration error is one line, exit 2. */
export function resolvedProvider(options: ProviderFlags) {
  const selection: ProviderSelection = {
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    ...(options.stream === false ? { stream: false } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  };
  const resolved = resolveProviderConfig(selection, options.env ?? process.env);
  if (Either.isLeft(resolved)) throw new CliFailure(resolved.left.message, 2);
  return resolved;
}

export type ProviderFlags = Pick<RunCommandOptions, "provider" | "model" | "baseUrl" | "stream" | "timeoutMs" | "env">;

/**
 * `agentloop run "TASK"`: one run against a real provider. Prints the run's final text (for any
 * state but `completed` the runtime's honest statement), or the AgentRunResult with `--json`.
 * Exit 0 only for `completed`; configuration errors are one line with exit code 2.
 * With `--workspace` the built-in tools act on that folder; each `--mcp` server adds its tools;
 * without either no tools are offered, so an evidence contract ends unverified.
 */
export async function runCommand(io: CliIO, task: string, options: RunCommandOptions = {}): Promise<number> {
  // Every flag is checked before the ledger is opened: a refused command leaves the database as it was.
  const contract = contractOf(options.contract);
  const approveMode = approveModeOf(options.approve);
  const policy = policyOf(options.policy);
  const resolved = resolvedProvider(options);
  const workspace = workspaceOf(options.workspace);
  const scanned = workspace ? scanSkills(workspace) : { skills: [], problems: [] };

  // MCP servers are input too (one that cannot be reached is exit 2), so they are opened before the
  // ledger; they close after the runtime, whose shutdown cancels their calls first (notifications/cancelled).
  const toolsets: McpToolset[] = [];
  const closeToolsets = () => Promise.allSettled(toolsets.map((toolset) => toolset.close())).then(() => {});
  const releaseToolsets = closeOnShutdown({ dispose: closeToolsets });
  const mcp = await openMcpServers(options.mcp ?? [], options.mcpKind ?? [], (toolset) => toolsets.push(toolset)).catch(
    async (error: unknown) => {
      releaseToolsets();
      await closeToolsets();
      throw error;
    },
  );
  // What a server's schemas leave unchecked is said once, before the run (server text escaped).
  for (const toolset of toolsets) {
    for (const refused of toolset.refused) process.stderr.write(`agentloop: ${terminalText(refused.reason)}\n`);
    for (const partly of toolset.partlyChecked) {
      process.stderr.write(
        `agentloop: ${terminalText(partly.name)}: ${terminalText(partly.unresolvedRefs.join(", "))} cannot be followed; any value is accepted there\n`,
      );
    }
  }

  // Streamed text is progress for a person at a terminal; the final text is printed once, at the end.
  // Under `progress_updates` the router already shows each step's text as it is recorded.
  const live = io.isTTY && !options.json && policy !== "progress_updates";
  let printedDelta = false;
  const provider = makeProvider(resolved.right, {
    ...(live
      ? {
          onTextDelta: (_runId: string, _step: number, text: string) => {
            printedDelta = true;
            process.stderr.write(terminalText(text, { lines: true }));
          },
        }
      : {}),
  });

  const runtime = await AgentRuntime.make({
    database: options.db ?? DEFAULT_DB,
    provider,
    ...(options.retry ? { retry: options.retry } : {}),
  }).catch(async (error: unknown) => {
    releaseToolsets();
    await closeToolsets();
    throw new CliFailure((error as { message?: string }).message ?? String(error));
  });
  releaseToolsets();
  const releaseOnShutdown = closeOnShutdown({ dispose: () => runtime.dispose().finally(closeToolsets) });
  const channel = consoleChannel();
  const router = policy && !options.json ? makeRouter({ runtime, channels: [{ channel, policy }] }) : undefined;
  try {
    for (const problem of scanned.problems) {
      io.err(`agentloop: skipped skill ${terminalText(problem.path)}: ${terminalText(problem.message)}`);
    }
    const skills = scanned.skills.map((entry) => entry.manifest);
    const tools = [
      ...(workspace ? builtinTools(workspace, { senders: [channelMessageSender(channel)] }).values() : []),
      ...mcp,
    ];
    const sessions = new SessionRunner(runtime);
    const handle = await sessions.startTurn({
      sessionId: options.session ?? `cli-${randomUUID()}`,
      input: task,
      provider,
      ...(contract ? { signals: { explicit: contract } } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      system: buildSystemPrompt(workspace, { skills }),
      skills: [],
      ...(approveMode ? { approval: { kinds: ["mutate", "deliver"] as const } } : {}),
    });
    const stopApprovals = approveMode
      ? decideApprovals(handle, approveMode, {
          input: options.input ?? process.stdin,
          err: (line) => io.err(line),
          prompt: (text) => process.stderr.write(text),
        })
      : undefined;
    const delivery = router?.attach(handle);
    const result: AgentRunResult = await handle.settled.finally(() => stopApprovals?.());
    await delivery?.done;
    if (printedDelta) process.stderr.write("\n");
    if (options.json) io.out(JSON.stringify(result, null, 2));
    else if (!router) io.out(terminalText(result.finalText, { lines: true }));
    return result.terminalState === "completed" ? 0 : 1;
  } finally {
    router?.dispose();
    releaseOnShutdown();
    await runtime.dispose();
    await closeToolsets();
  }
}

/** The workspace folder, which must exist and be a folder (exit 2 otherwise). */
export function workspaceOf(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const workspace = resolve(path);
  if (!existsSync(workspace)) throw new CliFailure(`workspace ${path} does not exist`, 2);
  if (!statSync(workspace).isDirectory()) throw new CliFailure(`workspace ${path} is not a folder`, 2);
  return workspace;
}
