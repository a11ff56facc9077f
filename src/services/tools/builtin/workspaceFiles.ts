import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { Effect } from "effect";
import { z } from "zod";
import { defineTool, type ToolResult } from "../Tool.js";
import { resolveInWorkspace } from "./workspacePaths.js";

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");
const MAX_READ_BYTES = 64 * 1024;

const refuse = (error: unknown): ToolResult => ({
  status: "error",
  output: { error: error instanceof Error ? error.message : String(error) },
});

/** `workspace_read`: a file's text with evidence of exactly what was read (sha256, bytes, path). */
export const workspaceReadTool = (workspace: string) =>
  defineTool({
    name: "workspace_read",
    description: "Read a text file inside the workspace. Returns its content; the receipt carries its sha256.",
    kind: "observe",
    input: z.object({ path: z.string().min(1).describe("path relative to the workspace") }),
    execute: ({ path }) =>
      Effect.sync((): ToolResult => {
        try {
          const target = resolveInWorkspace(workspace, path);
          if (!existsSync(target.absolute)) return refuse(new Error(`${target.relative} does not exist`));
          if (statSync(target.absolute).isDirectory()) return refuse(new Error(`${target.relative} is a directory`));
          const data = readFileSync(target.absolute);
          const truncated = data.byteLength > MAX_READ_BYTES;
          return {
            status: "ok",
            output: { path: target.relative, content: data.subarray(0, MAX_READ_BYTES).toString("utf8"), truncated },
            evidence: { path: target.relative, sha256: sha256(data), bytes: data.byteLength },
          };
        } catch (error) {
          return refuse(error);
        }
      }),
  });

/** `workspace_list`: the entries of a folder (directories end with `/`). */
export const workspaceListTool = (workspace: string) =>
  defineTool({
    name: "workspace_list",
    description: "List the files and folders of a folder inside the workspace.",
    kind: "observe",
    input: z.object({ path: z.string().default(".") }),
    execute: ({ path }) =>
      Effect.sync((): ToolResult => {
        try {
          const target = resolveInWorkspace(workspace, path);
          const entries = readdirSync(target.absolute, { withFileTypes: true })
            .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
            .sort();
          return {
            status: "ok",
            output: { path: target.relative, entries },
            evidence: { path: target.relative, entries: entries.length, listing_sha256: sha256(entries.join("\n")) },
          };
        } catch (error) {
          return refuse(error);
        }
      }),
  });

/** `workspace_write`: writes a file inside the workspace; evidence is the hash before and after. */
export const workspaceWriteTool = (workspace: string) =>
  defineTool({
    name: "workspace_write",
    description: "Write (create or replace) a text file inside the workspace.",
    kind: "mutate",
    input: z.object({ path: z.string().min(1), content: z.string() }),
    execute: ({ path, content }) =>
      Effect.sync((): ToolResult => {
        try {
          const target = resolveInWorkspace(workspace, path);
          const existed = existsSync(target.absolute);
          if (existed && lstatSync(target.absolute).isDirectory())
            return refuse(new Error(`${target.relative} is a directory`));
          const before = existed ? sha256(readFileSync(target.absolute)) : null;
          mkdirSync(dirname(target.absolute), { recursive: true });
          // Re-check after creating folders: a concurrent symlink swap must not redirect the write.
          resolveInWorkspace(workspace, path);
          writeFileSync(target.absolute, content);
          const written = readFileSync(target.absolute);
          return {
            status: "ok",
            output: { path: target.relative, bytes: written.byteLength, created: !existed },
            evidence: {
              path: target.relative,
              sha256_before: before,
              sha256_after: sha256(written),
              bytes_written: written.byteLength,
            },
          };
        } catch (error) {
          return refuse(error);
        }
      }),
  });
