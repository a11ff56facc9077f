import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { readPackageVersion } from "../../src/cli/version.js";
import { runNode } from "../support/childProcess.js";
import { useTempDir } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-cli-version-");
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN_MODULE = new URL("../../src/cli/main.ts", import.meta.url).href;
/** The child process starts tsx and the whole CLI; allow for a loaded machine (not a timing assertion). */
const CHILD_TIMEOUT = 120_000;

/** What the package says about itself right now, so the tests follow a version bump. */
const packageVersion = (): string =>
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;

const cliEntry = `import { main } from ${JSON.stringify(MAIN_MODULE)};
process.exitCode = await main(process.argv.slice(2));
`;

async function runInProcess(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line), isTTY: false });
  return { code, out, err };
}

describe("agentloop --version", () => {
  it.each(["--version", "-V"])("%s prints the package.json version and exits 0", async (flag) => {
    expect(await runInProcess([flag])).toEqual({ code: 0, out: [packageVersion()], err: [] });
  });

  it("is listed in --help", async () => {
    const { code, out } = await runInProcess(["--help"]);
    expect(code).toBe(0);
    expect(out.join("\n")).toMatch(/-V, --version +print the agentloop version/);
  });

  it(
    "a child process running the CLI prints only the version on stdout and exits 0",
    async () => {
      // The source through tsx, not bin/ (which runs whatever dist/ was last built).
      const entry = tmp.path("cli.mjs");
      writeFileSync(entry, cliEntry);
      const { code, stdout, stderr } = await runNode(["--import", "tsx", entry, "--version"], ROOT);
      expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `${packageVersion()}\n`, stderr: "" });
    },
    CHILD_TIMEOUT,
  );
});

describe("readPackageVersion", () => {
  it("reads the package's own package.json by default", () => {
    expect(readPackageVersion()).toBe(packageVersion());
  });

  it("reads the version at run time from the package.json it is given (dist/cli/ resolves to the package root)", () => {
    writeFileSync(tmp.path("package.json"), JSON.stringify({ name: "agentloop", version: "0.2.0" }));
    const compiledModule = pathToFileURL(tmp.path("dist", "cli", "version.js"));
    expect(readPackageVersion(new URL("../../package.json", compiledModule))).toBe("0.2.0");
  });

  it("names the file in one line when it cannot be read or has no version", () => {
    const missing = pathToFileURL(tmp.path("package.json"));
    expect(() => readPackageVersion(missing)).toThrow(/^cannot read the agentloop version from .*package\.json: /);
    writeFileSync(tmp.path("package.json"), JSON.stringify({ name: "agentloop" }));
    expect(() => readPackageVersion(missing)).toThrow(/package\.json has no version$/);
  });
});
