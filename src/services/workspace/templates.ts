import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Default workspace files. Each carries a version marker so `workspace diff` can tell a
 * customised file from an old template; `workspace init` writes missing files only — a file
 * that exists is never overwritten.
 */
export const TEMPLATE_VERSION = 1;

export const marker = (file: string, version = TEMPLATE_VERSION) => `<!-- agentloop-template: ${file} v${version} -->`;

export const WORKSPACE_TEMPLATES: Readonly<Record<string, string>> = {
  "AGENTS.md": `${marker("AGENTS.md")}
# Agents

How work is done in this workspace. Edit freely: agentloop never overwrites this file.

- Prefer reading the current file over remembering it.
- Use the skill catalog; load a skill with \`skill_load\` before following it.
`,
  "SOUL.md": `${marker("SOUL.md")}
# Soul

Tone and character. Edit freely: agentloop never overwrites this file.

- Be direct and brief. Say plainly what was and was not done.
`,
  "USER.md": `${marker("USER.md")}
# User

What the agent should know about you (name, preferences, time zone). Edit freely.
`,
};

export interface InitResult {
  readonly written: string[];
  readonly kept: string[];
}

export function initWorkspace(dir: string): InitResult {
  const written: string[] = [];
  const kept: string[] = [];
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(WORKSPACE_TEMPLATES)) {
    const path = join(dir, file);
    if (existsSync(path)) {
      kept.push(file);
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content, { flag: "wx" });
    written.push(file);
  }
  mkdirSync(join(dir, "skills"), { recursive: true });
  return { written, kept };
}

export type TemplateStatus = "missing" | "current" | "customised" | "outdated";

export interface TemplateDiff {
  readonly file: string;
  readonly status: TemplateStatus;
  /** The file's template version marker, if it still has one. */
  readonly version: number | null;
  /** A unified-style line diff against the current template (empty when identical or missing). */
  readonly diff: string[];
}

function lineDiff(current: string, template: string): string[] {
  const a = current.split("\n");
  const b = template.split("\n");
  const out: string[] = [];
  const max = Math.max(a.length, b.length);
  for (let i = 0; i < max; i++) {
    if (a[i] === b[i]) continue;
    if (b[i] !== undefined) out.push(`- template:${i + 1}: ${b[i]}`);
    if (a[i] !== undefined) out.push(`+ yours:${i + 1}:    ${a[i]}`);
  }
  return out;
}

/** How each workspace file differs from the current template. Reads only. */
export function diffWorkspace(dir: string): TemplateDiff[] {
  return Object.entries(WORKSPACE_TEMPLATES).map(([file, template]) => {
    const path = join(dir, file);
    if (!existsSync(path)) return { file, status: "missing" as const, version: null, diff: [] };
    const content = readFileSync(path, "utf8");
    const version = Number(/<!-- agentloop-template: [^ ]+ v(\d+) -->/.exec(content)?.[1] ?? Number.NaN);
    const known = Number.isFinite(version) ? version : null;
    if (content === template) return { file, status: "current" as const, version: known, diff: [] };
    const status: TemplateStatus = known !== null && known < TEMPLATE_VERSION ? "outdated" : "customised";
    return { file, status, version: known, diff: lineDiff(content, template) };
  });
}
