import { z } from "zod";

/**
 * The rollout flags and stages as plain data (zod only, no Effect): the CLI's
 * command tree reads the stage names for its help without loading a command's implementation.
 * Reading and validating flags from files and the environment is src/config/flags.ts.
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
  /** The memory provenance gate of consolidation. */
  memoryGate: MemoryGateFlag,
});
export type AgentloopFlags = z.infer<typeof AgentloopFlags>;

/**
 * The fully rolled-out configuration (the last stage) and the runtime's own defaults.
 * Progress still reaches only the routes that ask for it: a route's policy defaults to final_only.
 */
export const DEFAULT_FLAGS: AgentloopFlags = {
  canonicalLedgerEnabled: true,
  receiptVerification: "enforce",
  channelProgressEnabled: true,
  legacyHistoryMode: "fallback",
  memoryGate: "enforce",
};

/** The rollout order as data: each stage's flags. */
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
    description: "trace ids, metrics, structured logs; a baseline of the old behaviour (nothing user-visible changes)",
    flags: OBSERVABILITY_ONLY,
  },
  {
    stage: 2,
    name: "ledger_dual_write",
    description:
      "the ledger, written beside memory_turns; history and channels keep the old behaviour; verdicts and gate decisions are recorded, not enforced",
    flags: { ...OBSERVABILITY_ONLY, receiptVerification: "observe", memoryGate: "observe" },
  },
  {
    stage: 3,
    name: "terminal_states",
    description: "terminal states and the receipt guard enforced (test workspaces first)",
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
