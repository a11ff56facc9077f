import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CassetteError, loadCassettes } from "../../../src/host/eval/loadCassettes.js";
import { useTempDir } from "../../support/tempDir.js";

const EVAL_DIR = fileURLToPath(new URL("../../../eval/", import.meta.url));
const tmp = useTempDir("agentloop-cassettes-");

const valid = (name = "case-1"): Record<string, unknown> => ({
  name,
  input: "Hello?",
  model: [{ text: "Hi.", finishReason: "stop" }],
  expect: { terminalState: "completed" },
});

/** Writes `content` (JSON unless a string) as `file` in the test's directory. */
function write(file: string, content: unknown): string {
  const path = tmp.path(file);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
}

/** The CassetteError message for loading `paths` (relative names against the test's directory). */
function loadError(...paths: string[]): string {
  try {
    loadCassettes(paths, tmp.dir());
  } catch (error) {
    expect(error).toBeInstanceOf(CassetteError);
    expect((error as CassetteError)._tag).toBe("CassetteError");
    return (error as CassetteError).message;
  }
  throw new Error("expected a CassetteError");
}

describe("loadCassettes: the shipped suite", () => {
  const files = readdirSync(EVAL_DIR).filter((file) => file.endsWith(".json"));

  it("ships at least one cassette file", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)("loads eval/%s", (file) => {
    const raw = JSON.parse(readFileSync(join(EVAL_DIR, file), "utf8")) as unknown;
    const cases = loadCassettes([join(EVAL_DIR, file)]);
    expect(cases).toHaveLength(Array.isArray(raw) ? raw.length : 1);
  });

  it("loads the whole directory in file order with unique names", () => {
    const cases = loadCassettes([EVAL_DIR], join(EVAL_DIR, ".."));
    const names = cases.map((loaded) => loaded.cassette.name);
    expect(new Set(names).size).toBe(names.length);
    expect(cases.map((loaded) => loaded.file)).toEqual([...cases.map((loaded) => loaded.file)].sort());
    expect(cases[0]!.file).toBe(join("eval", files.sort()[0]!));
  });
});

describe("loadCassettes: valid input", () => {
  it("loads a file holding one case as an object", () => {
    write("one.json", valid());
    expect(
      loadCassettes(
        ["one.json"].map((file) => tmp.path(file)),
        tmp.dir(),
      ),
    ).toEqual([{ file: "one.json", cassette: valid() }]);
  });

  it("loads a file holding several cases as an array, in order", () => {
    write("many.json", [valid("a"), valid("b")]);
    expect(loadCassettes([tmp.path("many.json")], tmp.dir()).map((loaded) => loaded.cassette.name)).toEqual(["a", "b"]);
  });

  it("walks directories recursively, sorted, and ignores non-JSON files", () => {
    write("b.json", valid("b"));
    write("a/inner.json", valid("a-inner"));
    write("notes.txt", "not a cassette");
    expect(loadCassettes([tmp.dir()], tmp.dir()).map((loaded) => loaded.file)).toEqual(["a/inner.json", "b.json"]);
  });

  it("keeps a raw string tool-call argument (scripted malformed JSON)", () => {
    write("raw.json", {
      ...valid(),
      model: [{ toolCalls: [{ id: "c1", name: "lookup", arguments: '{"i": 1' }] }],
    });
    const [loaded] = loadCassettes([tmp.path("raw.json")], tmp.dir());
    expect(loaded!.cassette.model[0]!.toolCalls![0]!.arguments).toBe('{"i": 1');
  });
});

describe("loadCassettes: bad cassettes", () => {
  it("names the file and an unknown top-level field", () => {
    write("bad.json", { ...valid(), bogus: true });
    const message = loadError(tmp.path("bad.json"));
    expect(message).toBe('bad.json: unknown field "bogus"');
  });

  it("names the case and the path of an unknown nested field", () => {
    write("bad.json", [valid("a"), { ...valid("b"), model: [{ text: "Hi.", temperature: 0 }] }]);
    const message = loadError(tmp.path("bad.json"));
    expect(message).toContain("bad.json");
    expect(message).toContain('"temperature"');
    expect(message).toContain("case 1, field model.0");
  });

  it("names the file and a field of the wrong type", () => {
    write("bad.json", { ...valid(), maxSteps: "three" });
    const message = loadError(tmp.path("bad.json"));
    expect(message).toMatch(/^bad\.json: field maxSteps: /);
  });

  it("names an invalid enum value's field", () => {
    write("bad.json", { ...valid(), expect: { terminalState: "done" } });
    expect(loadError(tmp.path("bad.json"))).toMatch(/^bad\.json: field expect\.terminalState: /);
  });

  it("names a missing required expect", () => {
    const { expect: _expect, ...withoutExpect } = valid();
    write("bad.json", withoutExpect);
    expect(loadError(tmp.path("bad.json"))).toBe("bad.json: missing required field expect");
  });

  it("says a file is not valid JSON, in one line", () => {
    write("bad.json", '{ "name": "x", ');
    const message = loadError(tmp.path("bad.json"));
    expect(message).toMatch(/^bad\.json: not valid JSON \(/);
    expect(message).not.toContain("\n");
  });

  it("names both files when a case name is used twice", () => {
    write("a.json", valid("same"));
    write("b.json", valid("same"));
    expect(loadError(tmp.dir())).toBe('b.json: field name: "same" is already used in a.json');
  });

  it("refuses a case name used twice within one file", () => {
    write("dup.json", [valid("same"), valid("same")]);
    expect(loadError(tmp.path("dup.json"))).toBe('dup.json: field name: "same" is already used in dup.json');
  });

  it("refuses an empty array file", () => {
    write("empty.json", []);
    expect(loadError(tmp.path("empty.json"))).toMatch(/^empty\.json: /);
  });

  it("refuses a path that does not exist", () => {
    expect(loadError(tmp.path("missing.json"))).toContain("missing.json: no such file or directory");
  });

  it("refuses a directory without cassettes", () => {
    mkdirSync(tmp.path("nothing"));
    expect(loadError(tmp.path("nothing"))).toContain("no cassettes found");
  });

  it("reports every problem as a single line", () => {
    write("bad.json", { ...valid(), tools: [{ name: "t", kind: "explode", outcomes: [] }] });
    const message = loadError(tmp.path("bad.json"));
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toContain("bad.json");
    expect(message).toContain("tools.0");
  });
});
