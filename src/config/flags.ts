import { existsSync, readFileSync } from "node:fs";
import * as Data from "effect/Data";
import { z } from "zod";
import type { DeliveryPolicy } from "../domain/delivery.js";
import { errorText } from "../domain/errorText.js";
import { AgentloopFlags, DEFAULT_FLAGS, ROLLOUT_STAGES, type RolloutStage } from "./rollout.js";

export * from "./rollout.js";

/**
 * The rollout flags in one validated config: defaults < JSON file < environment.
 * Rollback is by flags: turning a flag back never deletes ledger data.
 *
 * | flag                   | env                                   | values                  | default    |
 * | canonicalLedgerEnabled | AGENTLOOP_CANONICAL_LEDGER_ENABLED    | true/false              | true       |
 * | receiptVerification    | AGENTLOOP_RECEIPT_VERIFICATION        | off / observe / enforce | enforce    |
 * | channelProgressEnabled | AGENTLOOP_CHANNEL_PROGRESS_ENABLED    | true/false              | true       |
 * | legacyHistoryMode      | AGENTLOOP_LEGACY_HISTORY_MODE         | fallback / off          | fallback   |
 * | memoryGate             | AGENTLOOP_MEMORY_GATE                 | off / observe / enforce | enforce    |
 */

export const FLAG_ENV: Readonly<Record<keyof AgentloopFlags, string>> = {
  canonicalLedgerEnabled: "AGENTLOOP_CANONICAL_LEDGER_ENABLED",
  receiptVerification: "AGENTLOOP_RECEIPT_VERIFICATION",
  channelProgressEnabled: "AGENTLOOP_CHANNEL_PROGRESS_ENABLED",
  legacyHistoryMode: "AGENTLOOP_LEGACY_HISTORY_MODE",
  memoryGate: "AGENTLOOP_MEMORY_GATE",
};

/** The snake_case spelling of the flags (as in a YAML config block), accepted in files too. */
const SNAKE_KEYS: Readonly<Record<string, keyof AgentloopFlags>> = {
  canonical_ledger_enabled: "canonicalLedgerEnabled",
  receipt_verification: "receiptVerification",
  channel_progress_enabled: "channelProgressEnabled",
  legacy_history_mode: "legacyHistoryMode",
  memory_gate: "memoryGate",
};

export type FlagsErrorReason =
  /** A variable or key holds a value the flag does not take. */
  | "invalid_value"
  /** A key that names no flag. */
  | "unknown_flag"
  /** The flags file is missing, not JSON, or not a JSON object. */
  | "file_missing"
  | "file_not_json"
  | "not_an_object"
  /** `--stage` names no rollout stage. */
  | "unknown_stage";

/** A bad flag value or file: `message` is one line naming the variable or key. */
export class FlagsError extends Data.TaggedError("FlagsError")<{
  readonly reason: FlagsErrorReason;
  readonly message: string;
}> {}

const BOOLEAN_TEXT: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  "1": true,
  "0": false,
  yes: true,
  no: false,
  on: true,
  off: false,
};

function expected(key: keyof AgentloopFlags): string {
  const shape = AgentloopFlags.shape[key];
  return shape instanceof z.ZodEnum ? `one of ${shape.options.join(", ")}` : "true or false";
}

function parseEnvValue(key: keyof AgentloopFlags, raw: string): unknown {
  const text = raw.trim().toLowerCase();
  if (AgentloopFlags.shape[key] instanceof z.ZodBoolean) return text in BOOLEAN_TEXT ? BOOLEAN_TEXT[text] : raw;
  return text;
}

function checked(key: keyof AgentloopFlags, value: unknown, where: string): AgentloopFlags[typeof key] {
  const parsed = AgentloopFlags.shape[key].safeParse(value);
  if (!parsed.success)
    throw new FlagsError({
      reason: "invalid_value",
      message: `${where} must be ${expected(key)}, got ${JSON.stringify(value)}`,
    });
  return parsed.data;
}

/** Flags from a parsed JSON object (camelCase or snake_case; `agent_runtime` nesting allowed). */
export function flagsFromObject(value: unknown, source = "flags"): Partial<AgentloopFlags> {
  let object = value;
  if (object !== null && typeof object === "object" && !Array.isArray(object) && "agent_runtime" in object) {
    object = (object as { agent_runtime: unknown }).agent_runtime;
  }
  if (object === null || typeof object !== "object" || Array.isArray(object)) {
    throw new FlagsError({ reason: "not_an_object", message: `${source}: expected a JSON object of flags` });
  }
  const flags: Record<string, unknown> = {};
  for (const [rawKey, raw] of Object.entries(object)) {
    const key = (rawKey in AgentloopFlags.shape ? rawKey : SNAKE_KEYS[rawKey]) as keyof AgentloopFlags | undefined;
    if (!key) {
      throw new FlagsError({
        reason: "unknown_flag",
        message: `${source}: unknown flag "${rawKey}" (known: ${Object.keys(AgentloopFlags.shape).join(", ")})`,
      });
    }
    flags[key] = checked(key, raw, `${source}: ${rawKey}`);
  }
  return flags as Partial<AgentloopFlags>;
}

/** Flags set in the environment (`AGENTLOOP_*`); empty values are unset. */
export function flagsFromEnv(env: Readonly<Record<string, string | undefined>>): Partial<AgentloopFlags> {
  const flags: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(FLAG_ENV) as Array<[keyof AgentloopFlags, string]>) {
    const raw = env[variable];
    if (raw === undefined || raw.trim() === "") continue;
    flags[key] = checked(key, parseEnvValue(key, raw), variable);
  }
  return flags as Partial<AgentloopFlags>;
}

export interface LoadFlagsOptions {
  /** A JSON file of flags; missing file is an error. */
  readonly file?: string | undefined;
  /** Default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** What the file and environment override (default DEFAULT_FLAGS, or a rollout stage's flags). */
  readonly base?: AgentloopFlags;
}

/** defaults (or `base`) < file < environment, validated; throws one FlagsError line on a bad value. */
export function loadFlags(options: LoadFlagsOptions = {}): AgentloopFlags {
  let fromFile: Partial<AgentloopFlags> = {};
  if (options.file !== undefined) {
    if (!existsSync(options.file)) {
      throw new FlagsError({ reason: "file_missing", message: `flags file ${options.file} does not exist` });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(options.file, "utf8"));
    } catch (error) {
      throw new FlagsError({
        reason: "file_not_json",
        message: `flags file ${options.file} is not valid JSON: ${errorText(error)}`,
      });
    }
    fromFile = flagsFromObject(parsed, `flags file ${options.file}`);
  }
  return AgentloopFlags.parse({
    ...(options.base ?? DEFAULT_FLAGS),
    ...fromFile,
    ...flagsFromEnv(options.env ?? process.env),
  });
}

export function rolloutStage(nameOrNumber: string | number): RolloutStage {
  const stage = ROLLOUT_STAGES.find(
    (candidate) => candidate.name === nameOrNumber || String(candidate.stage) === String(nameOrNumber),
  );
  if (!stage) {
    throw new FlagsError({
      reason: "unknown_stage",
      message: `unknown rollout stage ${JSON.stringify(nameOrNumber)} (known: ${ROLLOUT_STAGES.map((s) => `${s.stage} ${s.name}`).join(", ")})`,
    });
  }
  return stage;
}

// --- Where each flag goes -------------------------------------------------------------------

/** `AgentRuntime.make({ ...runtimeFlagOptions(flags) })`. */
export const runtimeFlagOptions = (flags: AgentloopFlags) => ({ receiptVerification: flags.receiptVerification });

/** `new SessionRunner(runtime, { flags: sessionFlagOptions(flags) })`. */
export const sessionFlagOptions = (flags: AgentloopFlags) => ({
  canonicalLedgerEnabled: flags.canonicalLedgerEnabled,
  legacyHistoryMode: flags.legacyHistoryMode,
});

/** The gate for `MemoryService.consolidateRun(runId, scope, memoryGateMode(flags))`. */
export const memoryGateMode = (flags: AgentloopFlags) => flags.memoryGate;

/** The policy a channel route gets: what it asks for when progress is enabled, else `final_only`. */
export const channelPolicy = (flags: AgentloopFlags, requested: DeliveryPolicy = "final_only"): DeliveryPolicy =>
  flags.channelProgressEnabled ? requested : "final_only";
