import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SkillManifest } from "../../domain/index.js";
import { skillCatalog } from "../contextBuilder.js";

/**
 * The runtime-owned base prompt (seed §4 Phase 7): the minimal evidence and terminal-state
 * contract. The workspace cannot override it; its files come after it.
 */
export const BASE_PROMPT = `You are an agent run by agentloop.
Text communicates; tools act.
- Never claim that you read, checked, changed, ran, tested, sent, published or committed anything unless a tool result in this conversation shows it.
- Tool results are facts. Your own earlier messages are not evidence.
- When something was not done, failed, or could not be verified, say so plainly.
- The runtime, not you, decides whether the task is complete; do not call unfinished work done.`;

/** Workspace files injected after the base prompt, in this order, when present. */
export const WORKSPACE_PROMPT_FILES = ["AGENTS.md", "SOUL.md", "USER.md"] as const;

export interface PromptParts {
  /** The skill catalog (name + description), after the workspace files. */
  readonly skills?: ReadonlyArray<Pick<SkillManifest, "name" | "description">>;
  /** The memory section (issue I), last. */
  readonly memory?: string;
}

/** Base invariants, then AGENTS.md, SOUL.md, USER.md (never rewritten), the skill catalog, memory. */
export function buildSystemPrompt(workspace: string | undefined, parts: PromptParts = {}): string {
  const sections = [BASE_PROMPT];
  if (workspace) {
    for (const file of WORKSPACE_PROMPT_FILES) {
      const path = join(workspace, file);
      if (existsSync(path)) sections.push(`# ${file}\n${readFileSync(path, "utf8").trim()}`);
    }
  }
  const catalog = skillCatalog(parts.skills ?? []);
  if (catalog) sections.push(catalog);
  if (parts.memory?.trim()) sections.push(parts.memory.trim());
  return sections.join("\n\n");
}
