import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";

/** Every command that takes `--db`, as argv before it. */
const DB_COMMANDS: ReadonlyArray<ReadonlyArray<string>> = [
  ["migrate"],
  ["recover"],
  ["eval"],
  ["run", "hello"],
  ["runs"],
  ["inspect", "run-1"],
  ["trace", "trace-1"],
  ["metrics"],
  ["health"],
  ["memory", "list"],
  ["memory", "approve", "1"],
  ["memory", "reject", "1"],
  ["memory", "markdown"],
];

describe('--db ""', () => {
  it.each(DB_COMMANDS.map((argv) => [argv.join(" "), argv] as const))(
    "agentloop %s refuses it with one stderr line and exit 2",
    async (_name, argv) => {
      const before = readdirSync(process.cwd());
      for (const form of [["--db", ""], ["--db="]]) {
        const out: string[] = [];
        const err: string[] = [];
        const code = await main([...argv, ...form], {
          out: (line) => out.push(line),
          err: (line) => err.push(line),
          isTTY: false,
        });
        expect({ code, out, err }).toEqual({
          code: 2,
          out: [],
          err: ["agentloop: --db needs a file name (an empty name would open a temporary database)"],
        });
      }
      expect(readdirSync(process.cwd())).toEqual(before);
    },
  );
});
