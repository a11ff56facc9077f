import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { SkillManifest } from "../../domain/index.js";
import { skillCatalog } from "../contextBuilder.js";
import { resolveInWorkspace } from "../tools/builtin/workspacePaths.js";

/**
 * A workspace prompt file's text, or undefined when it is absent, not a regular file, or a
 * symlink (of the file or a folder) whose real path leads out of the workspace.
 */
function readWorkspaceFile(workspace: string, file: string): string | undefined {
  if (!existsSync(join(workspace, file))) return undefined;
  try {
    const { absolute } = resolveInWorkspace(workspace, file);
    if (!statSync(absolute).isFile()) return undefined;
    return readFileSync(absolute, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The runtime-owned base prompt: the minimal evidence and terminal-state
 * contract. The workspace cannot override it; its files come after it.
 */
export const BASE_PROMPT = `You are an agent run by agentloop.
Text communicates; tools act.
- Never claim that you read, checked, changed, ran, tested, sent, published or committed anything unless a tool result in this conversation shows it.
- Tool results are facts. Your own earlier messages are not evidence.
- When something was not done, failed, or could not be verified, say so plainly.
- The runtime, not you, decides whether the task is complete; do not call unfinished work done.`;

/**
 * A system prompt as a host gives it, over the prompt it would otherwise get (`base`): a string
 * replaces it, `{ append }` adds a section after it, a function rewrites it, `false` sends none.
 */
export type SystemPrompt = string | false | { readonly append: string } | ((base: string) => string);

/** The prompt `system` makes of `base` (undefined: no prompt); an absent `system` keeps `base`. */
export function resolveSystemPrompt(base: string | undefined, system: SystemPrompt | undefined): string | undefined {
  if (system === undefined) return base;
  if (system === false) return undefined;
  if (typeof system === "string") return system;
  if (typeof system === "function") return system(base ?? "");
  return base ? `${base}\n\n${system.append}` : system.append;
}

/** Workspace files injected after the base prompt, in this order, when present. */
export const WORKSPACE_PROMPT_FILES = ["AGENTS.md", "SOUL.md", "USER.md"] as const;

export interface PromptParts {
  /** The skill catalog (name + description), after the workspace files. */
  readonly skills?: ReadonlyArray<Pick<SkillManifest, "name" | "description">>;
  /** The memory section, last. */
  readonly memory?: string;
}

/** Base invariants, then AGENTS.md, SOUL.md, USER.md (never rewritten), the skill catalog, memory. */
export function buildSystemPrompt(workspace: string | undefined, parts: PromptParts = {}): string {
  const sections = [BASE_PROMPT];
  if (workspace) {
    for (const file of WORKSPACE_PROMPT_FILES) {
      const text = readWorkspaceFile(workspace, file);
      if (text !== undefined) sections.push(`# ${file}\n${text.trim()}`);
    }
  }
  const catalog = skillCatalog(parts.skills ?? []);
  if (catalog) sections.push(catalog);
  if (parts.memory?.trim()) sections.push(parts.memory.trim());
  return sections.join("\n\n");
}
