import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import { afterEach, beforeEach } from "vitest";
import type { JsonValue } from "../../../../src/domain/index.js";
import {
  workspaceListTool,
  workspaceReadTool,
  workspaceWriteTool,
} from "../../../../src/services/tools/builtin/workspaceFiles.js";
import type { AnyToolDefinition, ToolResult } from "../../../../src/services/tools/Tool.js";
import { runTool } from "../../../support/executeTool.js";
import { listDir, useTempDir } from "../../../support/tempDir.js";

/**
 * Issue H: the workspace file tools refuse every way out of the workspace (as error results, not
 * throws) and their evidence matches the real file system.
 */

const tmp = useTempDir("agentloop-wsfiles-");
const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

let ws: string;
/** A folder next to the workspace holding secret.txt. */
let outside: string;
/** An empty folder next to the workspace: writes through links into it must leave it empty. */
let outsideEmpty: string;

beforeEach(() => {
  ws = tmp.path("ws");
  outside = tmp.path("outside");
  outsideEmpty = tmp.path("outside-empty");
  for (const dir of [ws, outside, outsideEmpty]) mkdirSync(dir);
  writeFileSync(join(outside, "secret.txt"), "top secret\n");
  writeFileSync(tmp.path("x"), "next to the workspace\n");
  symlinkSync(join(outside, "secret.txt"), join(ws, "link-file"));
  symlinkSync(outside, join(ws, "link-dir"));
  symlinkSync(outsideEmpty, join(ws, "link-empty"));
  symlinkSync(join(outsideEmpty, "new.txt"), join(ws, "dangling"));
});

const execute = (tool: AnyToolDefinition, args: Record<string, JsonValue>): Effect.Effect<ToolResult, unknown> =>
  runTool(tool, args);
const read = (path: string) => execute(workspaceReadTool(ws), { path });
const list = (path: string) => execute(workspaceListTool(ws), { path });
const write = (path: string, content = "written by the tool") => execute(workspaceWriteTool(ws), { path, content });

const errorOf = (result: ToolResult) => (result.output as { error?: string }).error ?? "";

/** Every entry under `dir` (links not followed) with its hash: proves nothing there was created or changed. */
function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const entry of listDir(dir)) {
    const path = join(dir, entry);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) entries[entry] = `link to ${readlinkSync(path)}`;
    else entries[entry] = stat.isDirectory() ? "dir" : sha256(readFileSync(path));
  }
  return entries;
}

describe("workspace paths that leave the workspace are refused", () => {
  const escapes = [
    { name: "a parent-relative path", path: () => "../x" },
    { name: "an absolute path outside", path: () => join(outside, "secret.txt") },
    { name: "a path climbing out through a folder", path: () => "a/../../x" },
    { name: "a symlink to a file outside", path: () => "link-file" },
    { name: "a path through a symlink to a folder outside", path: () => "link-dir/secret.txt" },
  ];

  it.effect.each(escapes)("workspace_read refuses $name with an error result", ({ path }) =>
    Effect.gen(function* () {
      const result = yield* read(path());
      expect(result.status).toBe("error");
      expect(errorOf(result)).toMatch(/outside the workspace/);
      expect(result.evidence).toBeUndefined();
      expect(JSON.stringify(result.output)).not.toContain("top secret");
    }),
  );

  it.effect.each([
    { name: "the parent folder", path: () => ".." },
    { name: "an absolute folder outside", path: () => outside },
    { name: "a folder climbing out", path: () => "a/../.." },
    { name: "a symlink to a folder outside", path: () => "link-dir" },
    { name: "a symlink to a file outside", path: () => "link-file" },
  ])("workspace_list refuses $name with an error result", ({ path }) =>
    Effect.gen(function* () {
      const result = yield* list(path());
      expect(result.status).toBe("error");
      expect(errorOf(result)).toMatch(/outside the workspace/);
      expect(JSON.stringify(result.output)).not.toContain("secret.txt");
    }),
  );

  it.effect.each(escapes)("workspace_write refuses $name and changes nothing outside", ({ path }) =>
    Effect.gen(function* () {
      const before = snapshot(tmp.dir());
      const result = yield* write(path());
      expect(result.status).toBe("error");
      expect(errorOf(result)).toMatch(/outside the workspace/);
      expect(snapshot(tmp.dir())).toEqual(before);
    }),
  );

  it.effect.each([
    { name: "a new file", path: "link-empty/new.txt" },
    { name: "a new file in a new subfolder", path: "link-empty/sub/deeper/new.txt" },
  ])("workspace_write through a symlinked folder creates nothing outside ($name)", ({ path }) =>
    Effect.gen(function* () {
      const result = yield* write(path);
      expect(result.status).toBe("error");
      expect(readdirSync(outsideEmpty)).toEqual([]);
    }),
  );

  it.effect("workspace_write through a dangling symlink to a path outside creates nothing outside", () =>
    Effect.gen(function* () {
      const result = yield* write("dangling");
      expect(result.status).toBe("error");
      expect(errorOf(result)).toMatch(/outside the workspace/);
      expect(readdirSync(outsideEmpty)).toEqual([]);
    }),
  );

  it.effect.each([
    { name: "workspace_read", run: () => read("a\0b") },
    { name: "workspace_list", run: () => list("a\0b") },
    { name: "workspace_write", run: () => write("a\0b") },
  ])("$name refuses a path containing NUL", ({ run }) =>
    Effect.gen(function* () {
      const result = yield* run();
      expect(result.status).toBe("error");
      expect(errorOf(result)).toMatch(/not a valid path/);
    }),
  );

  it.effect("allows a symlink that stays inside the workspace", () =>
    Effect.gen(function* () {
      writeFileSync(join(ws, "real.txt"), "inside");
      symlinkSync(join(ws, "real.txt"), join(ws, "alias"));
      const result = yield* read("alias");
      expect(result).toMatchObject({ status: "ok", output: { content: "inside" } });
    }),
  );
});

describe("workspace_read", () => {
  it.effect("returns an error result naming a missing file", () =>
    Effect.gen(function* () {
      const result = yield* read("notes.md");
      expect(result.status).toBe("error");
      expect(errorOf(result)).toContain("notes.md");
      expect(errorOf(result)).toMatch(/does not exist/);
    }),
  );

  it.effect("returns an error result when asked to read a folder", () =>
    Effect.gen(function* () {
      mkdirSync(join(ws, "src"));
      const result = yield* read("src");
      expect(result.status).toBe("error");
      expect(errorOf(result)).toMatch(/src is a directory/);
    }),
  );

  it.effect("reports the sha256 and byte count of the file as it is on disk", () =>
    Effect.gen(function* () {
      const content = "debug: true\nname: Grüße 👋\n";
      writeFileSync(join(ws, "config.yaml"), content);
      const result = yield* read("config.yaml");
      const onDisk = readFileSync(join(ws, "config.yaml"));
      expect(result.status).toBe("ok");
      expect(result.output).toEqual({ path: "config.yaml", content, truncated: false });
      expect(result.evidence).toEqual({ path: "config.yaml", sha256: sha256(onDisk), bytes: onDisk.byteLength });
    }),
  );

  it.effect("truncates a file over 64 KiB but hashes the whole file", () =>
    Effect.gen(function* () {
      const content = `${"a".repeat(64 * 1024)}${"b".repeat(10_000)}`;
      writeFileSync(join(ws, "big.txt"), content);
      const result = yield* read("big.txt");
      const output = result.output as { content: string; truncated: boolean };
      expect(result.status).toBe("ok");
      expect(output.truncated).toBe(true);
      expect(Buffer.byteLength(output.content)).toBe(64 * 1024);
      expect(output.content).not.toContain("b");
      expect(result.evidence).toMatchObject({
        sha256: sha256(readFileSync(join(ws, "big.txt"))),
        bytes: statSync(join(ws, "big.txt")).size,
      });
    }),
  );
});

describe("workspace_list", () => {
  it.effect("lists exactly the folder's entries, folders ending with /", () =>
    Effect.gen(function* () {
      writeFileSync(join(ws, "a.txt"), "a");
      mkdirSync(join(ws, "src"));
      writeFileSync(join(ws, "src", "b.ts"), "b");
      const result = yield* list(".");
      const expected = readdirSync(ws, { withFileTypes: true })
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort();
      expect(result.status).toBe("ok");
      expect(result.output).toEqual({ path: ".", entries: expected });
      expect(expected).toEqual(expect.arrayContaining(["a.txt", "src/"]));
      expect(result.evidence).toEqual({
        path: ".",
        entries: expected.length,
        listing_sha256: sha256(expected.join("\n")),
      });
    }),
  );

  it.effect("lists a subfolder by its workspace-relative path", () =>
    Effect.gen(function* () {
      mkdirSync(join(ws, "src", "lib"), { recursive: true });
      writeFileSync(join(ws, "src", "b.ts"), "b");
      const result = yield* list("src");
      expect(result.output).toEqual({ path: "src", entries: ["b.ts", "lib/"] });
    }),
  );

  it.effect("returns an error result for a missing folder", () =>
    Effect.gen(function* () {
      const result = yield* list("nowhere");
      expect(result.status).toBe("error");
      expect(errorOf(result)).toContain("nowhere");
    }),
  );
});

describe("workspace_write", () => {
  it.effect("reports sha256_before null, the hash after and the bytes written for a new file", () =>
    Effect.gen(function* () {
      const content = "hello — wörld\n";
      const result = yield* write("notes/new.md", content);
      const onDisk = readFileSync(join(ws, "notes", "new.md"));
      expect(result.status).toBe("ok");
      expect(onDisk.toString("utf8")).toBe(content);
      expect(result.evidence).toEqual({
        path: join("notes", "new.md"),
        sha256_before: null,
        sha256_after: sha256(onDisk),
        bytes_written: statSync(join(ws, "notes", "new.md")).size,
      });
      expect(result.output).toMatchObject({ created: true });
    }),
  );

  it.effect("reports the hash of the replaced content as sha256_before", () =>
    Effect.gen(function* () {
      writeFileSync(join(ws, "config.yaml"), "debug: true\n");
      const before = sha256(readFileSync(join(ws, "config.yaml")));
      const result = yield* write("config.yaml", "debug: false\n");
      expect(result.status).toBe("ok");
      expect(result.evidence).toMatchObject({
        sha256_before: before,
        sha256_after: sha256(readFileSync(join(ws, "config.yaml"))),
        bytes_written: statSync(join(ws, "config.yaml")).size,
      });
      expect(result.output).toMatchObject({ created: false });
    }),
  );

  it.effect("refuses to replace a folder", () =>
    Effect.gen(function* () {
      mkdirSync(join(ws, "src"));
      const result = yield* write("src");
      expect(result.status).toBe("error");
      expect(errorOf(result)).toMatch(/is a directory/);
      expect(statSync(join(ws, "src")).isDirectory()).toBe(true);
    }),
  );
});

describe("workspace tools refuse files that are not regular files", () => {
  /**
   * A helper that opens the FIFO from the other side after a moment (bounded by `timeout`): a
   * tool that wrongly opened the FIFO gets through instead of hanging forever, so a regression
   * fails instead of blocking the test worker.
   */
  let writer: ChildProcess | undefined;
  afterEach(() => {
    writer?.kill("SIGKILL");
    writer = undefined;
  });
  const fifo = () => {
    const path = join(ws, "pipe");
    execFileSync("mkfifo", [path]);
    return path;
  };

  it.effect("workspace_read refuses a FIFO as not a regular file, at once, without blocking the event loop", () =>
    Effect.gen(function* () {
      const path = fifo();
      writer = spawn("timeout", ["5", "sh", "-c", `sleep 0.5; printf fifo-data > '${path}'`], { stdio: "ignore" });
      const started = Date.now();
      const result = yield* read("pipe");
      expect(result.status).toBe("error");
      expect(errorOf(result)).toMatch(/pipe is not a regular file/);
      expect(Date.now() - started).toBeLessThan(400);
    }),
  );

  it.effect("workspace_write refuses to write into a FIFO", () =>
    Effect.gen(function* () {
      const path = fifo();
      writer = spawn(
        "timeout",
        ["5", "sh", "-c", `sleep 0.5; printf a > '${path}'; cat '${path}' > /dev/null; printf b > '${path}'`],
        { stdio: "ignore" },
      );
      const started = Date.now();
      const result = yield* write("pipe", "into the pipe");
      expect(result.status).toBe("error");
      expect(errorOf(result)).toMatch(/pipe is not a regular file/);
      expect(Date.now() - started).toBeLessThan(400);
    }),
  );
});
