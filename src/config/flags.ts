import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import type { DeliveryPolicy } from "../domain/delivery.js";

/**
 * The rollout flags of seed §3.3 in one validated config: defaults < JSON file < environment.
 * Rollback is by flags (seed §7.3): turning a flag back never deletes ledger data.
 *
 * | flag                   | env                                   | values                  | default    |
 * | canonicalLedgerEnabled | AGENTLOOP_CANONICAL_LEDGER_ENABLED    | true/false              | true       |
 * | receiptVerification    | AGENTLOOP_RECEIPT_VERIFICATION        | off / observe / enforce | enforce    |
 * | channelProgressEnabled | AGENTLOOP_CHANNEL_PROGRESS_ENABLED    | true/false              | true       |
 * | legacyHistoryMode      | AGENTLOOP_LEGACY_HISTORY_MODE         | fallback / off          | fallback   |
 * | memoryGate             | AGENTLOOP_MEMORY_GATE                 | off / observe / enforce | enforce    |
 */

export const ReceiptVerificationFlag = z.enum(["off", "observe", "enforce"]);
export const LegacyHistoryModeFlag = z.enum(["fallback", "off"]);
export const MemoryGateFlag = z.enum(["off", "observe", "enforce"]);

export const AgentloopFlags = z.strictObject({
  /** Session history is read from the canonical ledger (false: the old visible turns only). Runs always write it. */
  canonicalLedgerEnabled: z.boolean(),
  /** `off`: no verdict; `observe`: verdict recorded on the terminal event, users see the old behaviour; `enforce`. */
  receiptVerification: ReceiptVerificationFlag,
  /** Routes that ask for progress get it (a route's default is final_only); false: every channel is `final_only`. */
  channelProgressEnabled: z.boolean(),
  /** History without a ledger: fall back to visible turns, or ignore them. */
  legacyHistoryMode: LegacyHistoryModeFlag,
  /** The memory provenance gate of consolidation (seed §4 Phase 6). */
  memoryGate: MemoryGateFlag,
});
export type AgentloopFlags = z.infer<typeof AgentloopFlags>;

/**
 * The fully rolled-out configuration (the last stage of §7.1) and the runtime's own defaults.
 * Progress still reaches only the routes that ask for it: a route's policy defaults to final_only.
 */
export const DEFAULT_FLAGS: AgentloopFlags = {
  canonicalLedgerEnabled: true,
  receiptVerification: "enforce",
  channelProgressEnabled: true,
  legacyHistoryMode: "fallback",
  memoryGate: "enforce",
};

export const FLAG_ENV: Readonly<Record<keyof AgentloopFlags, string>> = {
  canonicalLedgerEnabled: "AGENTLOOP_CANONICAL_LEDGER_ENABLED",
  receiptVerification: "AGENTLOOP_RECEIPT_VERIFICATION",
  channelProgressEnabled: "AGENTLOOP_CHANNEL_PROGRESS_ENABLED",
  legacyHistoryMode: "AGENTLOOP_LEGACY_HISTORY_MODE",
  memoryGate: "AGENTLOOP_MEMORY_GATE",
};

/** The seed's snake_case spelling (its YAML block), accepted in files too. */
const SNAKE_KEYS: Readonly<Record<string, keyof AgentloopFlags>> = {
  canonical_ledger_enabled: "canonicalLedgerEnabled",
  receipt_verification: "receiptVerification",
  channel_progress_enabled: "channelProgressEnabled",
  legacy_history_mode: "legacyHistoryMode",
  memory_gate: "memoryGate",
};

/** A bad flag value or file: one line naming the variable or key. */
export class FlagsError extends Error {
  override readonly name = "FlagsError";
}

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
  if (!parsed.success) throw new FlagsError(`${where} must be ${expected(key)}, got ${JSON.stringify(value)}`);
  return parsed.data;
}

/** Flags from a parsed JSON object (camelCase or the seed's snake_case; `agent_runtime` nesting allowed). */
export function flagsFromObject(value: unknown, source = "flags"): Partial<AgentloopFlags> {
  let object = value;
  if (object !== null && typeof object === "object" && !Array.isArray(object) && "agent_runtime" in object) {
    object = (object as { agent_runtime: unknown }).agent_runtime;
  }
  if (object === null || typeof object !== "object" || Array.isArray(object)) {
    throw new FlagsError(`${source}: expected a JSON object of flags`);
  }
  const flags: Record<string, unknown> = {};
  for (const [rawKey, raw] of Object.entries(object)) {
    const key = (rawKey in AgentloopFlags.shape ? rawKey : SNAKE_KEYS[rawKey]) as keyof AgentloopFlags | undefined;
    if (!key) {
      throw new FlagsError(
        `${source}: unknown flag "${rawKey}" (known: ${Object.keys(AgentloopFlags.shape).join(", ")})`,
      );
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
    if (!existsSync(options.file)) throw new FlagsError(`flags file ${options.file} does not exist`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(options.file, "utf8"));
    } catch (error) {
      throw new FlagsError(
        `flags file ${options.file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    fromFile = flagsFromObject(parsed, `flags file ${options.file}`);
  }
  return AgentloopFlags.parse({
    ...(options.base ?? DEFAULT_FLAGS),
    ...fromFile,
    ...flagsFromEnv(options.env ?? process.env),
  });
}

/** The rollout order of seed §7.1, as data: each stage's flags. */
export interface RolloutStage {
  readonly stage: number;
  readonly name: string;
  readonly description: string;
  readonly flags: AgentloopFlags;
}

const OBSERVABILITY_ONLY: AgentloopFlags = {
  canonicalLedgerEnabled: false,
  receiptVerification: "off",
  channelProgressEnabled: false,
  legacyHistoryMode: "fallback",
  memoryGate: "off",
};

export const ROLLOUT_STAGES: ReadonlyArray<RolloutStage> = [
  {
    stage: 1,
    name: "observability",
    description:
      "Phase 0: trace ids, metrics, structured logs; baseline of the old behaviour (nothing user-visible changes)",
    flags: OBSERVABILITY_ONLY,
  },
  {
    stage: 2,
    name: "ledger_dual_write",
    description:
      "Phase 1 ledger with dual-write to memory_turns; history and channels keep the old behaviour; verdicts and gate decisions are recorded, not enforced",
    flags: { ...OBSERVABILITY_ONLY, receiptVerification: "observe", memoryGate: "observe" },
  },
  {
    stage: 3,
    name: "terminal_states",
    description: "Phase 2/3 terminal states and receipt guard enforced (test workspaces first)",
    flags: { ...OBSERVABILITY_ONLY, receiptVerification: "enforce", memoryGate: "observe" },
  },
  {
    stage: 4,
    name: "progress_layering",
    description: "progress for the internal web UI's routes; message channels stay final_only",
    flags: {
      ...OBSERVABILITY_ONLY,
      receiptVerification: "enforce",
      memoryGate: "observe",
      channelProgressEnabled: true,
    },
  },
  {
    stage: 5,
    name: "canonical_history",
    description: "history read from the canonical ledger (compare old/new context and token cost)",
    flags: {
      ...OBSERVABILITY_ONLY,
      receiptVerification: "enforce",
      memoryGate: "observe",
      channelProgressEnabled: true,
      canonicalLedgerEnabled: true,
    },
  },
  {
    stage: 6,
    name: "memory_gate",
    description: "memory provenance gate enforced last; old memory is down-ranked, never bulk-deleted",
    flags: {
      canonicalLedgerEnabled: true,
      receiptVerification: "enforce",
      channelProgressEnabled: true,
      legacyHistoryMode: "fallback",
      memoryGate: "enforce",
    },
  },
];

export function rolloutStage(nameOrNumber: string | number): RolloutStage {
  const stage = ROLLOUT_STAGES.find(
    (candidate) => candidate.name === nameOrNumber || String(candidate.stage) === String(nameOrNumber),
  );
  if (!stage) {
    throw new FlagsError(
      `unknown rollout stage ${JSON.stringify(nameOrNumber)} (known: ${ROLLOUT_STAGES.map((s) => `${s.stage} ${s.name}`).join(", ")})`,
    );
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
