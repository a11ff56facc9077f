/**
 * `npm run bench:peers [-- --json] [--quick] [--write]`: installs the peers into bench/peers (its
 * own package.json, pinned; kept out of the runtime's dependencies) when node_modules is missing,
 * then runs the whole bench with them: `tsx bench/run.ts --peers …`.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = fileURLToPath(new URL("../../", import.meta.url));
const args = process.argv.slice(2);

if (!existsSync(new URL("node_modules/", import.meta.url))) {
  process.stderr.write("bench:peers: installing bench/peers (first run; better-sqlite3 may build from source) …\n");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const install = spawnSync(npm, ["install", "--no-audit", "--no-fund"], {
    cwd: here,
    // npm's output goes to stderr so `--json` stays machine-readable on stdout.
    stdio: ["ignore", process.stderr, process.stderr],
  });
  if (install.status !== 0) {
    process.stderr.write(`bench:peers: npm install in bench/peers failed (exit ${install.status})\n`);
    process.exit(install.status ?? 1);
  }
}

const bench = spawnSync(process.execPath, ["--import", "tsx", "bench/run.ts", "--peers", ...args], {
  cwd: root,
  stdio: "inherit",
  env: {
    ...process.env,
    AGENTLOOP_BENCH_COMMAND: `npm run bench:peers${args.length > 0 ? ` -- ${args.join(" ")}` : ""}`,
  },
});
process.exit(bench.status ?? 1);
