import { randomUUID } from "node:crypto";
import { type ContextMessage, NONE_CONTRACT } from "../domain/index.js";
import type { RunInput } from "../machines/run/context.js";
import type { Provider } from "../services/providers/Provider.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../services/providers/retry.js";
import type { ApprovalPolicy } from "../services/tools/approvalPolicy.js";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../services/tools/callPlanner.js";
import type { AnyToolDefinition } from "../services/tools/Tool.js";
import { type AgentRuntimeConfig, parsedContract, type StartRunOptions } from "./runtimeConfig.js";

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

/** The tools a run may use, by name: a run's own list replaces the runtime's. */
export function toolsOf(config: AgentRuntimeConfig, options: Pick<StartRunOptions, "tools">) {
  const toolList = options.tools ?? config.tools ?? [];
  return { toolList, tools: new Map(toolList.map((tool) => [tool.name, tool])) };
}

/** The run's provider; a run without one (in its options or the runtime's config) cannot start. */
export function providerOf(config: AgentRuntimeConfig, options: Pick<StartRunOptions, "provider">, verb: string) {
  const provider = options.provider ?? config.provider;
  if (!provider) throw new Error(`${verb} needs a provider: pass one in the runtime config or the run options`);
  return provider;
}

export function resolveRunSettings(config: AgentRuntimeConfig, options: StartRunOptions): RunSettings {
  const provider = providerOf(config, options, "startRun");
  const { toolList, tools } = toolsOf(config, options);
  return {
    runId: options.runId ?? `run_${randomUUID()}`,
    sessionId: options.sessionId,
    input: options.input,
    provider,
    toolList,
    tools,
    allowedTools: new Set(options.allowedTools ?? tools.keys()),
    contract: options.contract ? parsedContract(options.contract) : NONE_CONTRACT,
    history: options.history ?? [],
    maxSteps: options.maxSteps ?? config.maxSteps ?? DEFAULT_MAX_STEPS,
    doomLoopThreshold: config.doomLoopThreshold ?? DEFAULT_DOOM_LOOP_THRESHOLD,
    maxProtocolRepairs: config.maxProtocolRepairs ?? DEFAULT_MAX_PROTOCOL_REPAIRS,
    toolConcurrency: Math.max(1, Math.floor(config.toolConcurrency ?? DEFAULT_TOOL_CONCURRENCY)),
    locale: options.locale ?? config.locale ?? "en",
    receiptVerification: config.receiptVerification ?? "enforce",
    retry: config.retry ?? DEFAULT_RETRY_POLICY,
    defaultToolTimeoutMs: config.defaultToolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    claimJudge: config.claimJudge ?? false,
    approval: options.approval ?? config.approval,
    approvalPollMs: config.approval?.pollMs,
    payloadCapBytes: config.payloadCapBytes,
  };
}
