import { errorText } from "../domain/errorText.js";
import { terminalText } from "../domain/printable.js";

export { controlCharacterIn, terminalText } from "../domain/printable.js";

/**
 * Where CLI commands write; injectable so tests can run commands in-process. Printers pass every
 * value that is not their own text (ids, names, who decided, tool output) through `terminalText`;
 * the process's own writer escapes whatever control character is left, so none reaches the terminal.
 */
export interface CliIO {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly isTTY: boolean;
  /**
   * Writes a line as it is: only for lines whose escape sequences agentloop added itself (the
   * colours of a table) and whose values are escaped already. Without it, `out` is used.
   */
  readonly styled?: (line: string) => void;
}

export const processIO: CliIO = {
  out: (line) => process.stdout.write(`${terminalText(line, { lines: true })}\n`),
  err: (line) => process.stderr.write(`${terminalText(line, { lines: true })}\n`),
  styled: (line) => process.stdout.write(`${line}\n`),
  isTTY: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
};

/** A failure the CLI reports as one line and an exit code, never a stack trace. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * What the CLI shows of any failure: the first line of its message — an Error's, a tagged
 * failure's (`{ message }`), or the text itself.
 */
export function firstLine(error: unknown): string {
  return errorText(error, { firstLine: true }) || "unknown error";
}

/** A failure as the CLI writes it on stderr: one `agentloop: …` line, escaped for the terminal. */
export function errorLine(error: unknown): string {
  return `agentloop: ${terminalText(firstLine(error))}`;
}

/**
 * Ends the process quietly when the reader of `stream` goes away (`agentloop metrics | head -1`):
 * a closed pipe means the consumer has all it wanted, so it is exit 0, not an EPIPE stack trace.
 * Any other write error is one `agentloop:` line on stderr and exit 1. For the process entry only:
 * it calls process.exit.
 */
export function exitQuietlyOnBrokenPipe(stream: NodeJS.WritableStream = process.stdout): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    // Reporting a failure of stderr on stderr could only fail again.
    if (stream !== process.stderr) process.stderr.write(`${errorLine(error)}\n`);
    process.exit(1);
  });
}
