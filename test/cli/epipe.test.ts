import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-cli-epipe-");
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OUTPUT_MODULE = pathToFileURL(fileURLToPath(new URL("../../src/cli/output.ts", import.meta.url))).href;
/** The child starts tsx; allow for a loaded machine (not a timing assertion). */
const CHILD_TIMEOUT = 120_000;

interface ChildResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly firstChunk: string;
  readonly stderr: string;
}

/**
 * Runs `body` as an ES module under tsx (so it can import the TypeScript source). With
 * `closeStdoutEarly`, the parent destroys its end of the child's stdout after the first chunk —
 * what `| head -1` does once it has its line.
 */
function runScript(body: string, options: { closeStdoutEarly: boolean }): Promise<ChildResult> {
  const script = tmp.path("script.mjs");
  writeFileSync(script, `import { exitQuietlyOnBrokenPipe } from ${JSON.stringify(OUTPUT_MODULE)};\n${body}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let firstChunk = "";
    let stderr = "";
    child.stdout.once("data", (chunk) => {
      firstChunk = String(chunk);
      if (options.closeStdoutEarly) child.stdout.destroy();
    });
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, firstChunk, stderr }));
  });
}

/**
 * Writes metrics-like lines forever, a batch per macrotask so the stream's 'error' event gets its
 * turn. The guard exit (3) only fires if the broken pipe were never noticed, so the test cannot hang.
 */
const WRITE_UNTIL_THE_READER_LEAVES = `
let batches = 0;
const writeBatch = () => {
  for (let i = 0; i < 100; i++) process.stdout.write(\`agent_runs_total{terminal_state="completed"} \${batches * 100 + i}\\n\`);
  if (++batches > 100_000) process.exit(3);
  setImmediate(writeBatch);
};
writeBatch();
`;

describe("exitQuietlyOnBrokenPipe (child process)", () => {
  it(
    "a reader that stops early (| head -1) ends the writer with exit 0 and nothing on stderr",
    async () => {
      const result = await runScript(`exitQuietlyOnBrokenPipe();\n${WRITE_UNTIL_THE_READER_LEAVES}`, {
        closeStdoutEarly: true,
      });
      expect(result.firstChunk).toMatch(/^agent_runs_total\{terminal_state="completed"\} 0\n/);
      expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({
        code: 0,
        signal: null,
        stderr: "",
      });
    },
    CHILD_TIMEOUT,
  );

  it(
    "without the handler the same writer dies of an unhandled EPIPE (what the handler prevents)",
    async () => {
      const result = await runScript(WRITE_UNTIL_THE_READER_LEAVES, { closeStdoutEarly: true });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("EPIPE");
    },
    CHILD_TIMEOUT,
  );

  it(
    "any other stream error is one 'agentloop:' line on stderr and exit 1",
    async () => {
      const result = await runScript(
        `import { PassThrough } from "node:stream";
const stream = new PassThrough();
exitQuietlyOnBrokenPipe(stream);
stream.emit("error", Object.assign(new Error("no space left on device\\nsecond line"), { code: "ENOSPC" }));
`,
        { closeStdoutEarly: false },
      );
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 1,
        stderr: "agentloop: no space left on device\n",
      });
    },
    CHILD_TIMEOUT,
  );
});
