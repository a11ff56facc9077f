import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { CliIO } from "../../src/cli/output.js";
import { marker, TEMPLATE_VERSION, WORKSPACE_TEMPLATES } from "../../src/services/workspace/templates.js";
import { fileSha256, listDir, useTempDir } from "../support/tempDir.js";

/** Issue H: `agentloop workspace init|diff DIR`, in-process. */

const tmp = useTempDir("agentloop-workspace-cli-");

async function runCli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (line) => out.push(line), err: (line) => err.push(line), isTTY: false };
  const code = await main(argv, io);
  return { code, out, err };
}

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    listDir(dir).map((entry) => {
      const path = join(dir, entry);
      return [entry, statSync(path).isDirectory() ? "dir" : fileSha256(path)];
    }),
  );
}

const OLD_AGENTS = `${marker("AGENTS.md", 0)}\n# Agents\n\n- Always answer in German.\n`;

describe("agentloop workspace init", () => {
  it("writes the missing templates, prints one line per file and exits 0", async () => {
    const dir = tmp.path("ws");
    const { code, out, err } = await runCli(["workspace", "init", dir]);
    expect(code).toBe(0);
    expect(out).toEqual(["wrote AGENTS.md", "wrote SOUL.md", "wrote USER.md"]);
    expect(err).toEqual([]);
    expect(readFileSync(join(dir, "AGENTS.md"), "utf8")).toBe(WORKSPACE_TEMPLATES["AGENTS.md"]);
  });

  it("reports existing files as kept on a second run and exits 0", async () => {
    const dir = tmp.path("ws");
    await runCli(["workspace", "init", dir]);
    const { code, out } = await runCli(["workspace", "init", dir]);
    expect(code).toBe(0);
    expect(out).toEqual([
      "kept  AGENTS.md (exists; not overwritten)",
      "kept  SOUL.md (exists; not overwritten)",
      "kept  USER.md (exists; not overwritten)",
    ]);
  });

  it("never overwrites a customised AGENTS.md from an older template", async () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "AGENTS.md"), OLD_AGENTS);
    const hash = fileSha256(join(dir, "AGENTS.md"));
    const { code, out } = await runCli(["workspace", "init", dir]);
    expect(code).toBe(0);
    expect(out).toContain("kept  AGENTS.md (exists; not overwritten)");
    expect(fileSha256(join(dir, "AGENTS.md"))).toBe(hash);
  });

  it("prints the written and kept files as one JSON document with --json", async () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "USER.md"), "me");
    const { code, out } = await runCli(["workspace", "init", dir, "--json"]);
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0]!)).toEqual({ written: ["AGENTS.md", "SOUL.md"], kept: ["USER.md"] });
  });
});

describe("agentloop workspace diff", () => {
  it("prints each file's status and template version and exits 0", async () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "SOUL.md"), WORKSPACE_TEMPLATES["SOUL.md"]!);
    writeFileSync(join(dir, "USER.md"), "# Me\n");
    const { code, out, err } = await runCli(["workspace", "diff", dir]);
    expect(code).toBe(0);
    expect(err).toEqual([]);
    expect(out).toEqual([
      "AGENTS.md: missing (no template marker)",
      `SOUL.md: current (template v${TEMPLATE_VERSION})`,
      "USER.md: customised (no template marker)",
      "  - template:1: <!-- agentloop-template: USER.md v1 -->",
      "  + yours:1:    # Me",
      "  - template:2: # User",
      "  + yours:2:    ",
      "  - template:3: ",
      "  - template:4: What the agent should know about you (name, preferences, time zone). Edit freely.",
      "  - template:5: ",
    ]);
  });

  it("reports an AGENTS.md from an older template as outdated with the differing lines", async () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "AGENTS.md"), OLD_AGENTS);
    const { code, out } = await runCli(["workspace", "diff", dir]);
    expect(code).toBe(0);
    expect(out[0]).toBe("AGENTS.md: outdated (template v0)");
    expect(out).toContain(`  - template:1: ${marker("AGENTS.md")}`);
    expect(out).toContain(`  + yours:1:    ${marker("AGENTS.md", 0)}`);
    expect(out).toContain("  + yours:4:    - Always answer in German.");
  });

  it("prints the diff as one JSON document with --json", async () => {
    const dir = tmp.path("ws");
    await runCli(["workspace", "init", dir]);
    const { code, out } = await runCli(["workspace", "diff", dir, "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(out[0]!)).toEqual(
      ["AGENTS.md", "SOUL.md", "USER.md"].map((file) => ({
        file,
        status: "current",
        version: TEMPLATE_VERSION,
        diff: [],
      })),
    );
  });

  it("writes nothing: the listing and every file hash are unchanged", async () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "AGENTS.md"), OLD_AGENTS);
    writeFileSync(join(dir, "USER.md"), WORKSPACE_TEMPLATES["USER.md"]!);
    const before = snapshot(dir);
    await runCli(["workspace", "diff", dir]);
    await runCli(["workspace", "diff", dir, "--json"]);
    expect(snapshot(dir)).toEqual(before);
  });
});
