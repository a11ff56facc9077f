import { main } from "./main.js";
import { exitQuietlyOnBrokenPipe } from "./output.js";
import { disposeOpenRuntimes, openRuntimeCount } from "./shutdown.js";

/** Exit codes by the shell's convention: 128 + the signal's number. */
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type HandledSignal = keyof typeof SIGNAL_EXIT_CODES;

/**
 * The `agentloop` process: runs the command, ends quietly on a closed stdout pipe, and on
 * SIGINT/SIGTERM cancels the runs in flight (terminal rows written, tool process groups killed)
 * before it exits 130/143. A second signal exits at once; the next start's recovery closes what
 * is left open.
 */
export async function runAsProcess(argv: ReadonlyArray<string>): Promise<void> {
  exitQuietlyOnBrokenPipe(process.stdout);
  let received: HandledSignal | undefined;
  const onSignal = (signal: HandledSignal) => {
    const code = SIGNAL_EXIT_CODES[signal];
    if (received) process.exit(code);
    received = signal;
    process.exitCode = code;
    const runtimes = openRuntimeCount();
    if (runtimes > 0) {
      process.stderr.write(`agentloop: ${signal}: cancelling the runs in flight (again to exit at once)\n`);
    }
    void disposeOpenRuntimes().finally(() => process.exit(code));
  };
  for (const signal of Object.keys(SIGNAL_EXIT_CODES) as HandledSignal[]) process.on(signal, onSignal);
  const code = await main(argv);
  process.exitCode = received ? SIGNAL_EXIT_CODES[received] : code;
}
