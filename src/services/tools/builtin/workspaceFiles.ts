import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, readdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import * as Effect from "effect/Effect";
import { z } from "zod";
import { errorText } from "../../../domain/errorText.js";
import { defineTool, type ToolResult } from "../Tool.js";
import { resolveInWorkspace } from "./workspacePaths.js";

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");
const MAX_READ_BYTES = 64 * 1024;

const refuse = (error: unknown): ToolResult => ({
  status: "error",
  output: { error: errorText(error) },
});

/**
 * The tools' file I/O is asynchronous (never `*Sync` inside the fiber), so a call's timeout and
 * the run's cancellation can always fire; an unexpected failure becomes an error result.
 */
const fileTool = (body: () => Promise<ToolResult>): Effect.Effect<ToolResult> =>
  Effect.promise(() => body().catch(refuse));

/** Whether a path exists (following symlinks). */
async function statOrUndefined(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Reads a regular file. It is opened non-blocking and checked on the open handle, so a FIFO,
 * socket or device (which could block forever or never end) is refused, not read.
 */
async function readRegularFile(absolute: string, relative: string): Promise<Buffer> {
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new Error(`${relative} is a directory`);
    if (!info.isFile()) throw new Error(`${relative} is not a regular file`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** `workspace_read`: a file's text with evidence of exactly what was read (sha256, bytes, path). */
export const workspaceReadTool = (workspace: string) =>
  defineTool({
    name: "workspace_read",
    description: "Read a text file inside the workspace. Returns its content; the receipt carries its sha256.",
    kind: "observe",
    input: z.object({ path: z.string().min(1).describe("path relative to the workspace") }),
    execute: ({ path }) =>
      fileTool(async (): Promise<ToolResult> => {
        const target = resolveInWorkspace(workspace, path);
        if (!(await statOrUndefined(target.absolute))) return refuse(new Error(`${target.relative} does not exist`));
        const data = await readRegularFile(target.absolute, target.relative);
        const truncated = data.byteLength > MAX_READ_BYTES;
        return {
          status: "ok",
          output: { path: target.relative, content: data.subarray(0, MAX_READ_BYTES).toString("utf8"), truncated },
          evidence: { path: target.relative, sha256: sha256(data), bytes: data.byteLength },
        };
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
      fileTool(async (): Promise<ToolResult> => {
        const target = resolveInWorkspace(workspace, path);
        const entries = (await readdir(target.absolute, { withFileTypes: true }))
          .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
          .sort();
        return {
          status: "ok",
          output: { path: target.relative, entries },
          evidence: { path: target.relative, entries: entries.length, listing_sha256: sha256(entries.join("\n")) },
        };
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
      fileTool(async (): Promise<ToolResult> => {
        const target = resolveInWorkspace(workspace, path);
        const existing = await statOrUndefined(target.absolute);
        if (existing?.isDirectory()) return refuse(new Error(`${target.relative} is a directory`));
        // A FIFO, socket or device could block the write (or the read of what was there) forever.
        if (existing && !existing.isFile()) return refuse(new Error(`${target.relative} is not a regular file`));
        const before = existing ? sha256(await readRegularFile(target.absolute, target.relative)) : null;
        await mkdir(dirname(target.absolute), { recursive: true });
        // Re-check after creating folders: a concurrent symlink swap must not redirect the write.
        resolveInWorkspace(workspace, path);
        const handle = await open(
          target.absolute,
          constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NONBLOCK,
        );
        try {
          if (!(await handle.stat()).isFile()) throw new Error(`${target.relative} is not a regular file`);
          await handle.writeFile(content);
        } finally {
          await handle.close();
        }
        const written = await readRegularFile(target.absolute, target.relative);
        return {
          status: "ok",
          output: { path: target.relative, bytes: written.byteLength, created: !existing },
          evidence: {
            path: target.relative,
            sha256_before: before,
            sha256_after: sha256(written),
            bytes_written: written.byteLength,
          },
        };
      }),
  });
