import { fileURLToPath } from "node:url";
import { RunPathRecorder } from "../host/charts/pathRecorder.js";
import { writeHtmlReport } from "../host/eval/htmlReport.js";
import { CassetteError, loadCassettes } from "../host/eval/loadCassettes.js";
import { type CaseResult, type EvalReport, runEval } from "../host/eval/runEval.js";
import { runMachine } from "../machines/run/machine.js";
import * as Ledger from "../persistence/ledger.js";
import { AgentRuntime } from "../runtime/AgentRuntime.js";
import { CliFailure, type CliIO, terminalText } from "./output.js";
import { closeOnShutdown } from "./shutdown.js";

/** The evaluation suite shipped with the package. */
export const BUILTIN_SUITE = fileURLToPath(new URL("../../eval/", import.meta.url));

/** Scripted providers answer at once; retries only need to prove they happen. */
const EVAL_RETRY = { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 100 } as const;

export interface EvalCommandOptions {
  readonly db: string;
  readonly json?: boolean;
  /** Write a self-contained HTML report to this folder. */
  readonly report?: string;
}

/** A cell of the table: escaped (a case's name comes from its cassette), then padded or clipped. */
function pad(value: string, width: number): string {
  const text = terminalText(value);
  return text.length >= width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

function expectedText(result: CaseResult): string {
  return result.expectedReason ? `${result.expected}/${result.expectedReason}` : result.expected;
}

export function renderTable(report: EvalReport, colour: boolean): string[] {
  const paint = (code: number, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const nameWidth = Math.min(48, Math.max(4, ...report.cases.map((result) => result.name.length)) + 2);
  const lines = [`${pad("case", nameWidth)}${pad("expected", 38)}${pad("got", 38)}result`];
  for (const result of report.cases) {
    const got = `${result.terminalState}/${result.reason}`;
    lines.push(
      `${pad(result.name, nameWidth)}${pad(expectedText(result), 38)}${pad(got, 38)}${result.pass ? paint(32, "pass") : paint(31, "FAIL")}`,
    );
  }
  const { summary } = report;
  const states = Object.entries(summary.byTerminalState)
    .map(([state, count]) => `${state} ${count}`)
    .join(", ");
  lines.push(
    "",
    `${summary.passed}/${summary.total} cases as expected${summary.failed > 0 ? paint(31, ` (${summary.failed} failed)`) : ""}`,
    `terminal states: ${states}`,
    `claimsWithoutReceipt: ${summary.claimsWithoutReceipt}   qaCompletionRate: ${summary.qaCompletionRate.toFixed(2)}`,
  );
  return lines;
}

export async function evalCommand(
  io: CliIO,
  paths: ReadonlyArray<string>,
  options: EvalCommandOptions,
): Promise<number> {
  let cases: ReturnType<typeof loadCassettes>;
  try {
    cases = loadCassettes(paths.length > 0 ? paths : [BUILTIN_SUITE]);
  } catch (error) {
    if (error instanceof CassetteError) throw new CliFailure(error.message, 2);
    throw error;
  }
  // The report draws each case's path; the recorder sees every run actor from its first microstep.
  const watermark = options.report ? Ledger.watermark(options.db) : undefined;
  const recorder = new RunPathRecorder(runMachine.id, watermark?.read);
  const runtime = await AgentRuntime.make({
    database: options.db,
    retry: EVAL_RETRY,
    ...(options.report ? { inspect: recorder.inspect } : {}),
  }).catch((error: unknown) => {
    watermark?.close();
    throw new CliFailure((error as { message?: string }).message ?? String(error));
  });
  const releaseOnShutdown = closeOnShutdown(runtime);
  try {
    const progress = io.isTTY && !options.json;
    const report = await runEval(runtime, cases, {
      ...(options.report ? { paths: recorder } : {}),
      database: options.db,
      onCaseStart: (index, total, name) => {
        if (progress) process.stderr.write(`\r\u001b[2K[${index + 1}/${total}] ${terminalText(name)}`);
      },
    });
    if (progress) process.stderr.write("\r\u001b[2K");
    const reportPath = options.report
      ? await writeHtmlReport(options.report, report, {
          command: `agentloop eval ${paths.join(" ") || "(built-in suite)"}`,
        })
      : undefined;
    if (options.json) io.out(JSON.stringify({ cases: report.cases, summary: report.summary }, null, 2));
    else {
      // The table's colours are its own escape sequences; its cells are escaped by renderTable.
      for (const line of renderTable(report, io.isTTY)) (io.styled ?? io.out)(line);
      if (reportPath) io.out(`report: ${reportPath}`);
    }
    return report.summary.failed === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof CassetteError) throw new CliFailure(error.message, 2);
    throw error;
  } finally {
    releaseOnShutdown();
    watermark?.close();
    await runtime.dispose();
  }
}
