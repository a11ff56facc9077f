#!/usr/bin/env node
// The `agentloop` command: the compiled CLI (dist/), run by plain node.
let cli;
try {
  cli = await import("../dist/cli/process.js");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("dist")) throw error;
  process.stderr.write(
    "agentloop: the compiled CLI (dist/) is missing; run `npm run build` in the agentloop package\n",
  );
  process.exit(1);
}
await cli.runAsProcess(process.argv.slice(2));
