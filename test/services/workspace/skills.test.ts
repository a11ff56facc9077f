import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import { beforeEach } from "vitest";
import { buildSystemPrompt } from "../../../src/services/workspace/prompt.js";
import { discoverSkills, scanSkills, skillBody, skillLoadTool } from "../../../src/services/workspace/skills.js";
import { runTool } from "../../support/executeTool.js";
import { useTempDir } from "../../support/tempDir.js";

/**
 * Issue H: skills are discovered by their front matter only; the prompt carries the catalog (name
 * and description) and `skill_load` returns a body on demand, with the file's hash as evidence.
 */

const tmp = useTempDir("agentloop-skills-");
const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
let ws: string;
beforeEach(() => {
  ws = tmp.path("ws");
  mkdirSync(ws);
});

const RELEASE_NOTES = `---
name: release-notes
description: Write release notes from CHANGELOG.md
evidence: observe
requiredTools: [skill_load]
---
# Release notes
1. Read CHANGELOG.md.
2. BODY-ONLY-MARKER summarise the latest section.
`;

function writeSkill(folder: string, markdown: string): string {
  const dir = join(ws, "skills", folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), markdown);
  return join(dir, "SKILL.md");
}

const load = (name: string) => Effect.suspend(() => runTool(skillLoadTool(ws), { name }));

describe("scanSkills", () => {
  it("leaves out a SKILL.md it cannot parse, names it with the reason, and keeps the other skills", () => {
    writeSkill("alpha", "---\ndescription: Alpha skill\n---\nbody\n");
    writeSkill("broken", "---\ndescription: [unclosed\n---\nbody\n");
    writeSkill("zeta", "---\ndescription: Zeta skill\n---\nbody\n");
    const { skills, problems } = scanSkills(ws);
    expect(skills.map((entry) => entry.manifest.name)).toEqual(["alpha", "zeta"]);
    expect(problems).toEqual([{ path: "skills/broken/SKILL.md", message: expect.any(String) }]);
    expect(problems[0]!.message).not.toContain("\n");
    expect(discoverSkills(ws).map((entry) => entry.manifest.name)).toEqual(["alpha", "zeta"]);
  });
});

describe("discoverSkills", () => {
  it("finds nothing in a workspace without a skills folder", () => {
    expect(discoverSkills(ws)).toEqual([]);
  });

  it("reads the manifest from the front matter, without the body", () => {
    const path = writeSkill("release-notes", RELEASE_NOTES);
    const [entry] = discoverSkills(ws);
    expect(entry).toEqual({
      path,
      manifest: {
        name: "release-notes",
        description: "Write release notes from CHANGELOG.md",
        evidence: "observe",
        requiredTools: ["skill_load"],
        requiredReceiptKinds: [],
      },
    });
    expect(JSON.stringify(entry)).not.toContain("BODY-ONLY-MARKER");
  });

  it("lists skills sorted by folder name", () => {
    for (const name of ["zeta", "alpha", "mid"]) writeSkill(name, `---\ndescription: ${name} skill\n---\nbody\n`);
    expect(discoverSkills(ws).map((entry) => entry.manifest.name)).toEqual(["alpha", "mid", "zeta"]);
  });

  it("names a skill after its folder when the front matter has no name", () => {
    writeSkill("deploy", "---\ndescription: Deploy the app\n---\nSteps.\n");
    expect(discoverSkills(ws).map((entry) => entry.manifest)).toEqual([
      { name: "deploy", description: "Deploy the app", requiredTools: [], requiredReceiptKinds: [] },
    ]);
  });

  it("names a skill after its folder when the file has no front matter", () => {
    writeSkill("plain", "# Just a body\n");
    expect(discoverSkills(ws).map((entry) => entry.manifest)).toMatchObject([{ name: "plain", description: "" }]);
  });

  it("ignores folders without a SKILL.md and loose files", () => {
    writeSkill("real", RELEASE_NOTES);
    mkdirSync(join(ws, "skills", "empty"));
    writeFileSync(join(ws, "skills", "README.md"), "not a skill");
    expect(discoverSkills(ws).map((entry) => entry.manifest.name)).toEqual(["release-notes"]);
  });

  it("ignores a SKILL.md that links to a file outside the workspace", () => {
    writeFileSync(tmp.path("outside.md"), "---\nname: leak\n---\nOUTSIDE-SECRET\n");
    mkdirSync(join(ws, "skills", "leak"), { recursive: true });
    symlinkSync(tmp.path("outside.md"), join(ws, "skills", "leak", "SKILL.md"));
    writeSkill("real", RELEASE_NOTES);
    expect(discoverSkills(ws).map((entry) => entry.manifest.name)).toEqual(["release-notes"]);
  });

  it("ignores a skills folder that links outside the workspace", () => {
    const outside = tmp.path("outside-skills");
    mkdirSync(join(outside, "leak"), { recursive: true });
    writeFileSync(join(outside, "leak", "SKILL.md"), "---\nname: leak\n---\nOUTSIDE-SECRET\n");
    symlinkSync(outside, join(ws, "skills"));
    expect(discoverSkills(ws)).toEqual([]);
  });
});

describe("skill_load", () => {
  it.effect("returns the body without its front matter", () =>
    Effect.gen(function* () {
      writeSkill("release-notes", RELEASE_NOTES);
      const result = yield* load("release-notes");
      expect(result.status).toBe("ok");
      expect(result.output).toEqual({ name: "release-notes", body: skillBody(RELEASE_NOTES) });
      expect((result.output as { body: string }).body).toBe(
        "# Release notes\n1. Read CHANGELOG.md.\n2. BODY-ONLY-MARKER summarise the latest section.\n",
      );
    }),
  );

  it.effect("reports the sha256 of the SKILL.md file as evidence, and the receipt kind naming the loaded skill", () =>
    Effect.gen(function* () {
      const path = writeSkill("release-notes", RELEASE_NOTES);
      const result = yield* load("release-notes");
      expect(result.evidence).toEqual({
        skill: "release-notes",
        "skill_loaded:release-notes": true,
        path: "skills/release-notes/SKILL.md",
        sha256: sha256(readFileSync(path)),
      });
    }),
  );

  it.effect("names the real file in its evidence when the skill's name differs from its folder", () =>
    Effect.gen(function* () {
      const path = writeSkill("notes-folder", RELEASE_NOTES);
      const result = yield* load("release-notes");
      expect(result.evidence).toMatchObject({
        path: "skills/notes-folder/SKILL.md",
        sha256: sha256(readFileSync(path)),
      });
    }),
  );

  it.effect("returns an error result for an unknown skill", () =>
    Effect.gen(function* () {
      writeSkill("release-notes", RELEASE_NOTES);
      const result = yield* load("deploy");
      expect(result).toEqual({ status: "error", output: { error: "no skill named deploy" } });
    }),
  );

  it.effect("refuses to load a SKILL.md that links outside the workspace", () =>
    Effect.gen(function* () {
      writeFileSync(tmp.path("outside.md"), "---\nname: leak\n---\nOUTSIDE-SECRET\n");
      mkdirSync(join(ws, "skills", "leak"), { recursive: true });
      symlinkSync(tmp.path("outside.md"), join(ws, "skills", "leak", "SKILL.md"));
      const result = yield* load("leak");
      expect(result.status).toBe("error");
      expect(JSON.stringify(result.output)).not.toContain("OUTSIDE-SECRET");
    }),
  );

  it("strips front matter written with CRLF line ends", () => {
    expect(skillBody("---\r\nname: x\r\n---\r\nBody\r\n")).toBe("Body\r\n");
  });
});

describe("the skill catalog in the system prompt", () => {
  it("lists each skill's name and description but not its body", () => {
    writeSkill("release-notes", RELEASE_NOTES);
    writeSkill("deploy", "---\ndescription: Deploy the app\n---\nDEPLOY-BODY-MARKER\n");
    const prompt = buildSystemPrompt(ws, { skills: discoverSkills(ws).map((entry) => entry.manifest) });
    expect(prompt).toContain("- deploy: Deploy the app");
    expect(prompt).toContain("- release-notes: Write release notes from CHANGELOG.md");
    expect(prompt).toContain("skill_load");
    expect(prompt).not.toContain("BODY-ONLY-MARKER");
    expect(prompt).not.toContain("DEPLOY-BODY-MARKER");
  });

  it("has no catalog section when the workspace has no skills", () => {
    expect(buildSystemPrompt(ws, { skills: discoverSkills(ws).map((entry) => entry.manifest) })).not.toContain(
      "Available skills",
    );
  });
});
