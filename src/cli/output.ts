/** Where CLI commands write; injectable so tests can run commands in-process. */
export interface CliIO {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly isTTY: boolean;
}

export const processIO: CliIO = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
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

export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? "unknown error";
}
