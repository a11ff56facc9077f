/** Scores the claim detector on a corpus file: `tsx scripts/claimsScore.ts test/fixtures/claims/dev.en.jsonl [--errors]`. */
import { readFileSync } from "node:fs";
import { detectClaims } from "../src/services/claims.js";

const [file, flag] = process.argv.slice(2);
const rows = readFileSync(file!, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as { id: string; text: string; claim: boolean; kind: string | null; note: string });
let tp = 0;
let fp = 0;
let fn = 0;
let tn = 0;
for (const row of rows) {
  const claims = detectClaims(row.text);
  const said = claims.length > 0;
  if (said && row.claim) tp++;
  else if (said) fp++;
  else if (row.claim) fn++;
  else tn++;
  if (flag === "--errors" && said !== row.claim) {
    console.log(`${said ? "FP" : "FN"} ${row.id} [${row.note}] ${JSON.stringify(row.text).slice(0, 300)}`);
    if (said)
      console.log(
        `   → ${claims
          .map((c) => `${c.verb}: ${c.sentence}`)
          .join(" | ")
          .slice(0, 200)}`,
      );
  }
}
const p = tp / (tp + fp);
const r = tp / (tp + fn);
console.log(`${file}: n=${rows.length} P=${p.toFixed(3)} R=${r.toFixed(3)} tp=${tp} fp=${fp} fn=${fn} tn=${tn}`);
