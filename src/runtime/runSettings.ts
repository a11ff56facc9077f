import { randomUUID } from "node:crypto";
import { type ContextMessage, NONE_CONTRACT } from "../domain/index.js";
import type { RunInput } from "../machines/run/context.js";
import type { Provider } from "../services/providers/Provider.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../services/providers/retry.js";
import type { ApprovalPolicy } from "../services/tools/approvalPolicy.js";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../services/tools/callPlanner.js";
import type { AnyToolDefinition } from "../services/tools/Tool.js";
import { BASE_PROMPT, resolveSystemPrompt, type SystemPrompt } from "../services/workspace/prompt.js";
import {
  type AgentDefinition,
  type AgentRuntimeConfig,
  parsedContract,
  type StartRunOptions,
} from "./runtimeConfig.js";

/**
 * Every default a run uses, resolved in one place from the runtime's config and the run's own
 * options (a run's option wins): what the run session is built from.
 */

export const DEFAULT_MAX_STEPS = 24;
export const DEFAULT_DOOM_LOOP_THRESHOLD = 3;
export const DEFAULT_MAX_PROTOCOL_REPAIRS = 1;
export const DEFAULT_TOOL_CONCURRENCY = 4;

/** The machine's own inputs are taken as the machine declares them; the rest is what the run's I/O needs. */
export interface RunSettings
  extends Pick<
    RunInput,
    | "runId"
    | "sessionId"
    | "input"
    | "contract"
    | "maxSteps"
    | "doomLoopThreshold"
    | "maxProtocolRepairs"
    | "toolConcurrency"
    | "locale"
    | "receiptVerification"
  > {
  /** The named agent the run is built from, recorded with the run. */
  readonly agentName: string | null;
  readonly provider: Provider;
  readonly toolList: ReadonlyArray<AnyToolDefinition>;
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  readonly allowedTools: ReadonlySet<string>;
  readonly history: ReadonlyArray<ContextMessage>;
  readonly retry: RetryPolicy;
  readonly defaultToolTimeoutMs: number;
  readonly claimJudge: boolean;
  readonly approval: ApprovalPolicy | undefined;
  readonly approvalPollMs: number | undefined;
  readonly payloadCapBytes: number | undefined;
}

const NO_AGENT: AgentDefinition = {};

/** A named agent of the runtime; a name the runtime does not know is refused. */
export function agentOf(config: AgentRuntimeConfig, name: string | null | undefined): AgentDefinition {
  if (name === undefined || name === null) return NO_AGENT;
  const agent = config.agents && Object.hasOwn(config.agents, name) ? config.agents[name] : undefined;
  if (!agent) {
    const known = Object.keys(config.agents ?? {});
    throw new Error(
      `no agent named "${name}" on this runtime (${known.length > 0 ? `known: ${known.join(", ")}` : "it has no agents"})`,
    );
  }
  return agent;
}

/** The tools a run may use, by name: a run's own list replaces its agent's, which replaces the runtime's. */
export function toolsOf(config: AgentRuntimeConfig, options: Pick<StartRunOptions, "tools">, agent = NO_AGENT) {
  const toolList = options.tools ?? agent.tools ?? config.tools ?? [];
  return { toolList, tools: new Map(toolList.map((tool) => [tool.name, tool])) };
}

/** The run's provider; a run without one (in its options, its agent or the runtime's config) cannot start. */
export function providerOf(
  config: AgentRuntimeConfig,
  options: Pick<StartRunOptions, "provider">,
  verb: string,
  agent = NO_AGENT,
) {
  const provider = options.provider ?? agent.provider ?? config.provider;
  if (!provider)
    throw new Error(`${verb} needs a provider: pass one in the runtime config, the agent or the run options`);
  return provider;
}

/**
 * The run's system prompt: the base prompt, then the agent's `system` over it, then the run's
 * over that. An enqueued run's was resolved when it was queued and comes from its ledger.
 */
export function systemPromptOf(agent: AgentDefinition, system: SystemPrompt | undefined): string | undefined {
  return resolveSystemPrompt(resolveSystemPrompt(BASE_PROMPT, agent.system), system);
}

/** The system prompt comes first, before whatever history the run brings. */
function historyOf(system: string | undefined, history: ReadonlyArray<ContextMessage> | undefined) {
  if (!system) return history ?? [];
  return [{ role: "system" as const, content: system }, ...(history ?? [])];
}

export function resolveRunSettings(config: AgentRuntimeConfig, options: StartRunOptions): RunSettings {
  const agent = agentOf(config, options.agent);
  const provider = providerOf(config, options, "startRun", agent);
  const { toolList, tools } = toolsOf(config, options, agent);
  const contract = options.contract ?? agent.contract;
  return {
    runId: options.runId ?? `run_${randomUUID()}`,
    sessionId: options.sessionId,
    agentName: options.agent ?? null,
    input: options.input,
    provider,
    toolList,
    tools,
    allowedTools: new Set(options.allowedTools ?? agent.allowedTools ?? tools.keys()),
    contract: contract ? parsedContract(contract) : NONE_CONTRACT,
    history: historyOf(systemPromptOf(agent, options.system), options.history),
    maxSteps: options.maxSteps ?? agent.maxSteps ?? config.maxSteps ?? DEFAULT_MAX_STEPS,
    doomLoopThreshold: config.doomLoopThreshold ?? DEFAULT_DOOM_LOOP_THRESHOLD,
    maxProtocolRepairs: config.maxProtocolRepairs ?? DEFAULT_MAX_PROTOCOL_REPAIRS,
    toolConcurrency: Math.max(1, Math.floor(config.toolConcurrency ?? DEFAULT_TOOL_CONCURRENCY)),
    locale: options.locale ?? agent.locale ?? config.locale ?? "en",
    receiptVerification: config.receiptVerification ?? "enforce",
    retry: config.retry ?? DEFAULT_RETRY_POLICY,
    defaultToolTimeoutMs: config.defaultToolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    claimJudge: config.claimJudge ?? false,
    approval: options.approval ?? agent.approval ?? config.approval,
    approvalPollMs: config.approval?.pollMs,
    payloadCapBytes: config.payloadCapBytes,
  };
}
