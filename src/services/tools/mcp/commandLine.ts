import type { McpServerAddress } from "./connection.js";

/**
 * Words of a command line as a POSIX shell splits a simple command: whitespace separates, single
 * quotes keep everything, double quotes keep all but `\"` and `\\`, a backslash escapes the next
 * character. No expansion of any kind, so the server runs without a shell in between (a shell
 * would be the child the client stops, and the server its grandchild left running).
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && (line[index + 1] === '"' || line[index + 1] === "\\")) word += line[++index];
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === "\\") {
      if (index + 1 < line.length) word += line[++index];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in ${JSON.stringify(line)}`);
  if (inWord) words.push(word);
  return words;
}

/** `--mcp` text: an http(s) URL is a streamable HTTP server, anything else a command line to spawn. */
export function parseMcpFlag(text: string): McpServerAddress {
  const trimmed = text.trim();
  if (/^https?:\/\//i.test(trimmed)) return { url: trimmed };
  const [command, ...args] = splitCommandLine(trimmed);
  if (!command) throw new Error("--mcp needs a command line or an http(s) URL");
  return { command, args };
}
