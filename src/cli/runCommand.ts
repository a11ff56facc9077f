import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { Either } from "effect";
import { type AgentRunResult, type EvidenceMode, EvidenceMode as EvidenceModes } from "../domain/index.js";
import { AgentRuntime } from "../runtime/AgentRuntime.js";
import { channelMessageSender } from "../services/channels/Channel.js";
import { consoleChannel } from "../services/channels/console.js";
import {
  type Environment,
  makeProvider,
  PROVIDER_NAMES,
  type ProviderSelection,
  resolveProviderConfig,
} from "../services/providers/config.js";
import type { RetryPolicy } from "../services/providers/retry.js";
import { createRouter } from "../services/router.js";
import { SessionRunner } from "../services/sessionRunner.js";
import { builtinTools } from "../services/tools/builtin/index.js";
import { buildSystemPrompt } from "../services/workspace/prompt.js";
import { scanSkills } from "../services/workspace/skills.js";
import { CliFailure, type CliIO } from "./output.js";
import { closeOnShutdown } from "./shutdown.js";

const DEFAULT_DB = "./agentloop.db";

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
}

const POLICIES = ["final_only", "progress_updates", "silent_tool_status"] as const;

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

/**
 * `agentloop run "TASK"`: one run against a real provider. Prints the run's final text (for any
 * state but `completed` the runtime's honest statement), or the AgentRunResult with `--json`.
 * Exit 0 only for `completed`; configuration errors are one line with exit code 2.
 * With `--workspace` the built-in tools act on that folder; without it no tools are offered, so an
 * evidence contract ends unverified.
 */
export async function runCommand(io: CliIO, task: string, options: RunCommandOptions = {}): Promise<number> {
  const contract = contractOf(options.contract);
  const selection: ProviderSelection = {
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    ...(options.stream === false ? { stream: false } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  };
  const resolved = resolveProviderConfig(selection, options.env ?? process.env);
  if (Either.isLeft(resolved)) throw new CliFailure(resolved.left.message, 2);

  // Streamed text is progress for a person at a terminal; the final text is printed once, at the end.
  const live = io.isTTY && !options.json;
  let printedDelta = false;
  const provider = makeProvider(resolved.right, {
    ...(live
      ? {
          onTextDelta: (_runId: string, _step: number, text: string) => {
            printedDelta = true;
            process.stderr.write(text);
          },
        }
      : {}),
  });

  const runtime = await AgentRuntime.make({
    database: options.db ?? DEFAULT_DB,
    provider,
    ...(options.retry ? { retry: options.retry } : {}),
  }).catch((error: unknown) => {
    throw new CliFailure((error as { message?: string }).message ?? String(error));
  });
  const releaseOnShutdown = closeOnShutdown(runtime);
  const policy = policyOf(options.policy);
  const channel = consoleChannel();
  const router = policy && !options.json ? createRouter({ runtime, channels: [{ channel, policy }] }) : undefined;
  try {
    const workspace = options.workspace ? resolve(options.workspace) : undefined;
    if (workspace && !existsSync(workspace)) throw new CliFailure(`workspace ${options.workspace} does not exist`, 2);
    const scanned = workspace ? scanSkills(workspace) : { skills: [], problems: [] };
    for (const problem of scanned.problems) {
      process.stderr.write(`agentloop: skipped skill ${problem.path}: ${problem.message}\n`);
    }
    const skills = scanned.skills.map((entry) => entry.manifest);
    const tools = workspace ? [...builtinTools(workspace, { senders: [channelMessageSender(channel)] }).values()] : [];
    const sessions = new SessionRunner(runtime);
    const handle = await sessions.startTurn({
      sessionId: options.session ?? `cli-${randomUUID()}`,
      input: task,
      provider,
      ...(contract ? { signals: { explicit: contract } } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      system: buildSystemPrompt(workspace, { skills }),
      skills: [],
    });
    const delivery = router?.attach(handle);
    const result: AgentRunResult = await handle.settled;
    await delivery?.done;
    if (printedDelta) process.stderr.write("\n");
    if (options.json) io.out(JSON.stringify(result, null, 2));
    else if (!router) io.out(result.finalText);
    return result.terminalState === "completed" ? 0 : 1;
  } finally {
    router?.dispose();
    releaseOnShutdown();
    await runtime.dispose();
  }
}

/** Adds `run` to a commander program; the action reports its exit code through `setExit`. */
export function registerRunCommand(program: Command, io: CliIO, setExit: (code: number) => void): Command {
  return program
    .command("run")
    .description("run one task against a real model provider")
    .argument("<task>", "what the agent should do")
    .addOption(new Option("--provider <name>", "model provider (default: AGENTLOOP_PROVIDER)").choices(PROVIDER_NAMES))
    .option("--model <model>", "model name (default: AGENTLOOP_MODEL or the provider's default)")
    .option("--base-url <url>", "API base URL (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
    .addOption(new Option("--db <file>", "SQLite ledger file").default(DEFAULT_DB))
    .addOption(new Option("--contract <mode>", "completion contract").choices(EvidenceModes.options))
    .option("--no-stream", "ask for whole responses instead of streams")
    .option("--workspace <dir>", "workspace: prompt files, skills and the built-in tools act on it")
    .option("--session <id>", "continue this session (earlier turns replayed from the ledger)")
    .addOption(
      new Option("--policy <policy>", "deliver through the console channel with this policy").choices([...POLICIES]),
    )
    .option("--json", "print the AgentRunResult as JSON")
    .action(async (task: string, options: RunCommandOptions) => {
      setExit(await runCommand(io, task, options));
    });
}
