import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  diffWorkspace,
  initWorkspace,
  marker,
  TEMPLATE_VERSION,
  WORKSPACE_TEMPLATES,
} from "../../../src/services/workspace/templates.js";
import { fileSha256, listDir, useTempDir } from "../../support/tempDir.js";

/**
 * Issue H: `workspace init` writes only missing files and never overwrites one; `workspace diff`
 * tells missing, current, customised and outdated files apart, and only reads.
 */

const tmp = useTempDir("agentloop-templates-");
const FILES = ["AGENTS.md", "SOUL.md", "USER.md"];

/** An AGENTS.md from an older template (marker v0) that the user has edited. */
const OLD_CUSTOMISED_AGENTS = `${marker("AGENTS.md", 0)}
# Agents

- Always answer in German.
- Run npm test before saying tests pass.
`;

/** Every path under `dir` with the hash of each file: equal snapshots mean nothing was written. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    listDir(dir).map((entry) => {
      const path = join(dir, entry);
      return [entry, statSync(path).isDirectory() ? "dir" : fileSha256(path)];
    }),
  );
}

const statusOf = (dir: string) => Object.fromEntries(diffWorkspace(dir).map((entry) => [entry.file, entry.status]));

describe("initWorkspace", () => {
  it("writes every template into an empty workspace", () => {
    const dir = tmp.path("ws");
    const result = initWorkspace(dir);
    expect(result).toEqual({ written: FILES, kept: [] });
    for (const file of FILES) expect(readFileSync(join(dir, file), "utf8")).toBe(WORKSPACE_TEMPLATES[file]);
    expect(statSync(join(dir, "skills")).isDirectory()).toBe(true);
  });

  it("writes only the missing files", () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "SOUL.md"), "my soul");
    expect(initWorkspace(dir)).toEqual({ written: ["AGENTS.md", "USER.md"], kept: ["SOUL.md"] });
    expect(readFileSync(join(dir, "SOUL.md"), "utf8")).toBe("my soul");
  });

  it("changes nothing when run again", () => {
    const dir = tmp.path("ws");
    initWorkspace(dir);
    const before = snapshot(dir);
    expect(initWorkspace(dir)).toEqual({ written: [], kept: FILES });
    expect(snapshot(dir)).toEqual(before);
  });

  it("keeps the bytes of a customised AGENTS.md across init runs", () => {
    const dir = tmp.path("ws");
    initWorkspace(dir);
    const custom = `${WORKSPACE_TEMPLATES["AGENTS.md"]}\n- Never deploy on Fridays.\n`;
    writeFileSync(join(dir, "AGENTS.md"), custom);
    const hash = fileSha256(join(dir, "AGENTS.md"));
    initWorkspace(dir);
    initWorkspace(dir);
    expect(fileSha256(join(dir, "AGENTS.md"))).toBe(hash);
  });

  it("keeps an AGENTS.md written from an older template", () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "AGENTS.md"), OLD_CUSTOMISED_AGENTS);
    expect(initWorkspace(dir).kept).toEqual(["AGENTS.md"]);
    expect(readFileSync(join(dir, "AGENTS.md"), "utf8")).toBe(OLD_CUSTOMISED_AGENTS);
  });
});

describe("diffWorkspace", () => {
  it("reports every file missing in an empty workspace", () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    expect(diffWorkspace(dir)).toEqual(FILES.map((file) => ({ file, status: "missing", version: null, diff: [] })));
  });

  it("reports untouched templates as current with the template version", () => {
    const dir = tmp.path("ws");
    initWorkspace(dir);
    expect(diffWorkspace(dir)).toEqual(
      FILES.map((file) => ({ file, status: "current", version: TEMPLATE_VERSION, diff: [] })),
    );
  });

  it("reports an edited current template as customised with the changed lines", () => {
    const dir = tmp.path("ws");
    initWorkspace(dir);
    const lines = WORKSPACE_TEMPLATES["SOUL.md"]!.split("\n");
    lines[5] = "- Be warm and thorough.";
    writeFileSync(join(dir, "SOUL.md"), lines.join("\n"));
    const soul = diffWorkspace(dir).find((entry) => entry.file === "SOUL.md")!;
    expect(soul.status).toBe("customised");
    expect(soul.version).toBe(TEMPLATE_VERSION);
    expect(soul.diff).toEqual([
      "- template:6: - Be direct and brief. Say plainly what was and was not done.",
      "+ yours:6:    - Be warm and thorough.",
    ]);
  });

  it("reports a file without a template marker as customised with no version", () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "USER.md"), "# Me\nI live in Berlin.\n");
    const user = diffWorkspace(dir).find((entry) => entry.file === "USER.md")!;
    expect(user).toMatchObject({ status: "customised", version: null });
    expect(user.diff).toContain("+ yours:2:    I live in Berlin.");
  });

  it("reports a file from an older template as outdated, showing the differing lines", () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "AGENTS.md"), OLD_CUSTOMISED_AGENTS);
    const agents = diffWorkspace(dir).find((entry) => entry.file === "AGENTS.md")!;
    expect(agents.status).toBe("outdated");
    expect(agents.version).toBe(0);
    expect(agents.diff).toEqual(
      expect.arrayContaining([
        `- template:1: ${marker("AGENTS.md")}`,
        `+ yours:1:    ${marker("AGENTS.md", 0)}`,
        "+ yours:4:    - Always answer in German.",
        "+ yours:5:    - Run npm test before saying tests pass.",
      ]),
    );
  });

  it("tells missing, current, customised and outdated files apart in one workspace", () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "AGENTS.md"), OLD_CUSTOMISED_AGENTS);
    writeFileSync(join(dir, "SOUL.md"), WORKSPACE_TEMPLATES["SOUL.md"]!);
    expect(statusOf(dir)).toEqual({ "AGENTS.md": "outdated", "SOUL.md": "current", "USER.md": "missing" });
    writeFileSync(join(dir, "USER.md"), `${WORKSPACE_TEMPLATES["USER.md"]}Name: Ada\n`);
    expect(statusOf(dir)["USER.md"]).toBe("customised");
  });

  it("writes nothing in the workspace", () => {
    const dir = tmp.path("ws");
    mkdirSync(dir);
    writeFileSync(join(dir, "AGENTS.md"), OLD_CUSTOMISED_AGENTS);
    writeFileSync(join(dir, "SOUL.md"), WORKSPACE_TEMPLATES["SOUL.md"]!);
    const before = snapshot(dir);
    diffWorkspace(dir);
    expect(snapshot(dir)).toEqual(before);
  });

  it("does not create a workspace that does not exist", () => {
    const dir = tmp.path("absent");
    expect(diffWorkspace(dir).map((entry) => entry.status)).toEqual(["missing", "missing", "missing"]);
    expect(existsSync(dir)).toBe(false);
  });
});
