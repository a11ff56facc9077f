import type { ChannelReceipt, OutgoingMessage } from "../../domain/delivery.js";
import { terminalText } from "../../domain/printable.js";
import type { Channel } from "./Channel.js";

/** Carriage return + erase line: rewrites the status line in place. */
export const CLEAR_LINE = "\r\x1b[2K";

export interface ConsoleStream {
  write(chunk: string, callback: (error?: Error | null) => void): boolean;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface ConsoleChannelOptions {
  readonly id?: string;
  /** Default process.stdout. */
  readonly stream?: ConsoleStream;
  /** Whether progress is a live status line (default: the stream's isTTY). */
  readonly tty?: boolean;
}

/**
 * The CLI channel. On a TTY, progress is one live status line (rewritten in place with a carriage
 * return and erase-line, never followed by a newline) and a final or tool message clears it and is
 * printed on its own lines; elsewhere (pipes, files, CI logs) every message is printed as plain lines.
 * Progress texts already open with the localised in-progress marker.
 */
export function consoleChannel(options: ConsoleChannelOptions = {}): Channel {
  const stream: ConsoleStream = options.stream ?? process.stdout;
  const tty = options.tty ?? stream.isTTY === true;
  const id = options.id ?? "console";
  let count = 0;
  let statusShown = false;

  const write = (chunk: string) =>
    new Promise<void>((resolve, reject) => {
      stream.write(chunk, (error) => (error ? reject(error) : resolve()));
    });

  const statusLine = (text: string) => {
    const line = text.replace(/\s*\n\s*/g, " ");
    const width = stream.columns ?? 0;
    return width > 1 && line.length > width - 1 ? `${line.slice(0, width - 2)}…` : line;
  };

  // The text is the model's or a tool's: its control characters are escaped, the channel's own are not.
  const render = (message: OutgoingMessage): string => {
    const text = terminalText(message.text, { lines: true });
    if (!tty) return `${text}\n`;
    if (message.kind === "progress") {
      statusShown = true;
      return `${CLEAR_LINE}${statusLine(text)}`;
    }
    const clear = statusShown ? CLEAR_LINE : "";
    statusShown = false;
    return `${clear}${text}\n`;
  };

  return {
    id,
    send: async (message): Promise<ChannelReceipt> => {
      await write(render(message));
      count += 1;
      return { messageId: `${id}:${count}` };
    },
  };
}
