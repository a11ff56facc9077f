import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { writeHtmlReport } from "../../../src/host/eval/htmlReport.js";
import { loadCassettes } from "../../../src/host/eval/loadCassettes.js";
import { runEval } from "../../../src/host/eval/runEval.js";
import { useRuntimeHarness } from "../../support/runtimeHarness.js";

/**
 * The HTML report of the approval cassettes (eval/07-approval.json, run through the real runtime on
 * a SQLite ledger): each call's approval row — who decided what, when, with what scope — beside
 * the call in the timeline and beside its receipt.
 */

const harness = useRuntimeHarness("agentloop-report-approvals-");

/** The `<details>` section of one case. */
const caseHtml = (html: string, name: string) => {
  const start = html.indexOf(`<b>${name}</b>`);
  expect(start).toBeGreaterThan(0);
  return html.slice(start, html.indexOf("</details>", start));
};

describe("the HTML report shows approval rows", () => {
  it("beside the call they decided, in the timeline and in the receipts table", async () => {
    const runtime = await harness.makeRuntime();
    const cases = loadCassettes(["eval/07-approval.json"]).filter((loaded) =>
      ["approval-approve", "approval-deny-write", "approval-expire"].includes(loaded.cassette.name),
    );
    expect(cases).toHaveLength(3);
    const report = await runEval(runtime, cases);
    const html = readFileSync(await writeHtmlReport(harness.path("report"), report, { command: "test" }), "utf8");

    const approved = caseHtml(html, "approval-approve");
    const timeline = approved.slice(approved.indexOf('<ol class="timeline">'), approved.indexOf("</ol>"));
    // In the timeline, inside the tool_call entry of c1.
    expect(timeline).toMatch(
      /<b>tool_call<\/b> call c1 → send_message\([^<]*<div class="approval" data-testid="approval" data-call="c1" data-decision="approved">approval requested \S+ \([^)]*\); approved by eval:ops-lead at \S+, scope once<\/div><\/li>/,
    );
    // And in the receipt's row.
    expect(approved).toMatch(
      /<td>c1<\/td><td>send_message<\/td><td>ok<\/td><td>verified<\/td><td><div class="approval"[^>]*data-decision="approved">/,
    );

    expect(caseHtml(html, "approval-deny-write")).toMatch(
      /data-decision="denied">approval requested [^<]*; denied by [^<]+ at /,
    );
    // A call nobody decided shows its request, and that no decision came.
    expect(caseHtml(html, "approval-expire")).toMatch(
      /data-decision="waiting">approval requested [^<]*; no decision<\/div>/,
    );
  }, 120_000);
});
