/**
 * `npx tsx bench/hotspots.ts bench/profiles/<id>.cpuprofile …`: rewrites `<id>.hotspots.txt` beside
 * each profile from the profile itself (positions already restored by `--cpu-prof`), e.g. after the
 * summary's sections changed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { hotSpots } from "./lib/profile.js";

for (const file of process.argv.slice(2)) {
  const out = file.replace(/\.cpuprofile$/, ".hotspots.txt");
  writeFileSync(out, `${hotSpots(JSON.parse(readFileSync(file, "utf8")))}\n`);
  process.stderr.write(`wrote ${out}\n`);
}
