import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import * as Effect from "effect/Effect";
import { z } from "zod";
import { errorText } from "../../domain/errorText.js";
import type { SkillManifest } from "../../domain/index.js";
import { parseSkillManifest, skillLoadedKind } from "../contracts.js";
import { resolveInWorkspace } from "../tools/builtin/workspacePaths.js";
import { defineTool, type ToolResult } from "../tools/Tool.js";

export interface SkillEntry {
  readonly manifest: SkillManifest;
  readonly path: string;
}

/** Whether a SKILL.md stays inside the workspace (a symlinked file or folder may lead out of it). */
function insideWorkspace(workspace: string, path: string): boolean {
  try {
    resolveInWorkspace(workspace, relative(workspace, path));
    return true;
  } catch {
    return false;
  }
}

/** A SKILL.md that could not be read as a skill, and why. */
export interface SkillProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * Skills of a workspace: `skills/<name>/SKILL.md`, front matter only (bodies load on demand). A
 * SKILL.md whose real path is outside the workspace is not a skill of it. One unreadable or
 * malformed SKILL.md is reported in `problems` and left out; the other skills stay available.
 */
export function scanSkills(workspace: string): { skills: SkillEntry[]; problems: SkillProblem[] } {
  const root = join(workspace, "skills");
  if (!existsSync(root)) return { skills: [], problems: [] };
  const skills: SkillEntry[] = [];
  const problems: SkillProblem[] = [];
  const folders = readdirSync(root, { withFileTypes: true })
    .filter((entry) => {
      const path = join(root, entry.name, "SKILL.md");
      return entry.isDirectory() && existsSync(path) && insideWorkspace(workspace, path);
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of folders) {
    const path = join(root, entry.name, "SKILL.md");
    try {
      skills.push({ manifest: parseSkillManifest(readFileSync(path, "utf8"), entry.name), path });
    } catch (error) {
      const message = errorText(error, { firstLine: true });
      problems.push({ path: relative(workspace, path).split(sep).join("/"), message });
    }
  }
  return { skills, problems };
}

/** The skills of a workspace that could be read (see `scanSkills` for the ones that could not). */
export function discoverSkills(workspace: string): SkillEntry[] {
  return scanSkills(workspace).skills;
}

/** The body of a SKILL.md without its front matter. */
export function skillBody(markdown: string): string {
  return markdown.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, "");
}

/**
 * `skill_load`: the full body of one skill, with the file's sha256 as evidence, and the receipt
 * kind `skillLoadedKind(name)` naming the skill it loaded (what the memory conflict rule asks for).
 */
export const skillLoadTool = (workspace: string) =>
  defineTool({
    name: "skill_load",
    description: "Load the full instructions of a skill from the catalog by name.",
    kind: "observe",
    input: z.object({ name: z.string().min(1) }),
    execute: ({ name }) =>
      Effect.sync((): ToolResult => {
        const entry = discoverSkills(workspace).find((skill) => skill.manifest.name === name);
        if (!entry) return { status: "error", output: { error: `no skill named ${name}` } };
        const markdown = readFileSync(entry.path, "utf8");
        return {
          status: "ok",
          output: { name, body: skillBody(markdown) },
          evidence: {
            skill: name,
            [skillLoadedKind(name)]: true,
            path: relative(workspace, entry.path).split(sep).join("/"),
            sha256: createHash("sha256").update(markdown).digest("hex"),
          },
        };
      }),
  });
