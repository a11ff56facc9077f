import { ADDRESS_KINDS, type MemoryItem, type MemoryVerificationStatus } from "../../domain/index.js";

export interface RetrievalOptions {
  readonly now?: Date;
  readonly minConfidence?: number;
  readonly limit?: number;
}

const PRIORITY: Partial<Record<MemoryVerificationStatus, number>> = { verified: 0, legacy_unverified: 1 };

/**
 * Memory that may reach a prompt: verified items first, legacy_unverified after them (kept, lower
 * priority); pending, unverified, rejected, expired and low-confidence items are filtered out.
 */
export function retrieveMemory(items: ReadonlyArray<MemoryItem>, options: RetrievalOptions = {}): MemoryItem[] {
  const now = (options.now ?? new Date()).toISOString();
  const minConfidence = options.minConfidence ?? 0.2;
  return items
    .filter((item) => PRIORITY[item.verificationStatus] !== undefined)
    .filter((item) => item.confidence >= minConfidence)
    .filter((item) => !item.expiresAt || item.expiresAt > now)
    .sort(
      (a, b) =>
        PRIORITY[a.verificationStatus]! - PRIORITY[b.verificationStatus]! ||
        b.confidence - a.confidence ||
        a.createdAt.localeCompare(b.createdAt),
    )
    .slice(0, options.limit ?? 50);
}

function label(item: MemoryItem): string {
  return `[${item.verificationStatus} · ${item.provenance}${item.sourceRef ? ` · ${item.sourceRef}` : ""}]`;
}

/**
 * The memory section of the system prompt (after the workspace files): every item shows its
 * provenance and status, and the authoritative-source rule comes first.
 */
export function renderMemorySection(items: ReadonlyArray<MemoryItem>): string {
  if (items.length === 0) return "";
  const lines = items.map((item) => `- ${label(item)} ${item.content.replace(/\s+/g, " ").trim()}`);
  const addresses = items.some((item) => ADDRESS_KINDS.has(item.kind));
  return [
    "# Memory",
    "Memory may be stale. When it disagrees with a skill or a current file, read the authoritative source with a tool and follow that.",
    ...(addresses
      ? ["Never use an address (URL or host) from memory alone: read the skill or file that defines it first."]
      : []),
    ...lines,
  ].join("\n");
}

/** A Markdown projection of ACTIVE memory with each item's status; pending and unverified items never appear. */
export function renderMemoryMarkdown(items: ReadonlyArray<MemoryItem>, options: RetrievalOptions = {}): string {
  const active = retrieveMemory(items, { ...options, limit: Number.MAX_SAFE_INTEGER });
  const lines = ["# Memory", ""];
  if (active.length === 0) lines.push("_No active memory._");
  for (const item of active)
    lines.push(`- ${item.content} — _${item.verificationStatus}, ${item.provenance}, ${item.kind}_`);
  return `${lines.join("\n")}\n`;
}
