import { createRequire } from "node:module";
import * as Data from "effect/Data";
import type * as Yaml from "yaml";
import {
  ADDRESS_KINDS,
  CompletionContract,
  type CompletionContractInput,
  type ContractSource,
  type EvidenceMode,
  type MemoryItem,
  SkillManifest,
} from "../domain/index.js";

/**
 * Builds a run's CompletionContract from deterministic signals only, in this
 * precedence: explicit caller contract → explicit command → skill manifest → job type →
 * delivery request → `none`. It never looks at the words of the user's message and never runs
 * anything.
 */

export interface ContractSignals {
  readonly explicit?: CompletionContractInput;
  /** An explicit command the host recognised, e.g. "/send". */
  readonly command?: string;
  readonly skill?: SkillManifest;
  /** Scheduler / internal flow type. */
  readonly jobType?: string;
  /** The host asked for delivery to a channel. */
  readonly deliveryRequest?: { readonly channel: string } | boolean;
}

export interface ContractTables {
  readonly commands: Readonly<Record<string, EvidenceMode>>;
  readonly jobTypes: Readonly<Record<string, EvidenceMode>>;
}

export const DEFAULT_CONTRACT_TABLES: ContractTables = {
  commands: {
    "/send": "deliver",
    "/publish": "deliver",
    "/commit": "deliver",
    "/edit": "mutate",
    "/write": "mutate",
    "/run": "mutate",
    "/test": "mutate",
    "/check": "observe",
    "/read": "observe",
    "/search": "observe",
  },
  jobTypes: {
    scheduled_delivery: "deliver",
    scheduled_report: "deliver",
    workspace_maintenance: "mutate",
    health_check: "observe",
  },
};

function contract(evidenceMode: EvidenceMode, source: ContractSource, extra: Partial<CompletionContractInput> = {}) {
  return CompletionContract.parse({ evidenceMode, source, ...extra });
}

export function resolveContract(
  signals: ContractSignals,
  tables: ContractTables = DEFAULT_CONTRACT_TABLES,
): CompletionContract {
  if (signals.explicit) return CompletionContract.parse({ ...signals.explicit, source: "caller" });
  const commandMode = signals.command ? tables.commands[signals.command.trim().toLowerCase()] : undefined;
  if (commandMode) return contract(commandMode, "command");
  if (signals.skill?.evidence) {
    return contract(signals.skill.evidence, "skill", {
      requiredToolNames: signals.skill.requiredTools,
      requiredReceiptKinds: signals.skill.requiredReceiptKinds,
    });
  }
  const jobMode = signals.jobType ? tables.jobTypes[signals.jobType] : undefined;
  if (jobMode) return contract(jobMode, "job_type");
  if (signals.deliveryRequest) return contract("deliver", "delivery_request");
  return contract("none", "default");
}

/** A SKILL.md whose front matter is not a valid manifest; `message` names the field. */
/**
 * The YAML parser is loaded (through its CommonJS entry, so parsing stays synchronous) when the
 * first skill manifest is read, not with `import "agentloop"`; require keeps it once loaded.
 */
const require = createRequire(import.meta.url);
const yaml = (): typeof Yaml => require("yaml") as typeof Yaml;

export class SkillManifestError extends Data.TaggedError("SkillManifestError")<{
  readonly reason: "invalid_manifest";
  readonly message: string;
}> {}

/** Reads the YAML front matter of a SKILL.md; the body stays unread until the skill is loaded. */
export function parseSkillManifest(markdown: string, fallbackName?: string): SkillManifest {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(markdown);
  const raw: unknown = match ? yaml().parse(match[1]!) : {};
  const data = { ...(fallbackName ? { name: fallbackName } : {}), ...(raw && typeof raw === "object" ? raw : {}) };
  const parsed = SkillManifest.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SkillManifestError({
      reason: "invalid_manifest",
      message: `skill manifest: ${issue.path.join(".") || "front matter"}: ${issue.message}`,
    });
  }
  return parsed.data;
}

/**
 * The receipt kind (an evidence key) that a successful `skill_load` of the skill `name` carries:
 * the built-in loader (`skillLoadTool`) names the skill it loaded in its receipt evidence.
 */
export const skillLoadedKind = (name: string) => `skill_loaded:${name}`;

/**
 * The memory conflict rule: when active memory holds an external address
 * (URL, domain, network fact) and the run follows a skill, memory alone must not pick the
 * address — the run's contract then requires reading the authoritative source: a `skill_load`
 * of that very skill (receipt kind `skillLoadedKind(skill.name)`), not of any other skill.
 */
export function applyMemoryConflictRule(
  contract: CompletionContract,
  context: {
    readonly skill?: SkillManifest;
    readonly memory: ReadonlyArray<MemoryItem>;
  },
): CompletionContract {
  if (!context.skill || !context.memory.some((item) => ADDRESS_KINDS.has(item.kind))) return contract;
  const kind = skillLoadedKind(context.skill.name);
  const hasTool = contract.requiredToolNames.includes("skill_load");
  const hasKind = contract.requiredReceiptKinds.includes(kind);
  if (hasTool && hasKind) return contract;
  return {
    ...contract,
    evidenceMode: contract.evidenceMode === "none" ? "observe" : contract.evidenceMode,
    requiredToolNames: hasTool ? contract.requiredToolNames : [...contract.requiredToolNames, "skill_load"],
    requiredReceiptKinds: hasKind ? contract.requiredReceiptKinds : [...contract.requiredReceiptKinds, kind],
  };
}
