/**
 * Text a terminal shows, made safe to show. Run ids, tool names, who decided, tool output and model
 * text can come from anyone (a model, a tool, another process's flags); written raw, an ESC or a C1
 * CSI (U+009B) moves the cursor, rewrites the screen or sets the window title, and a CR or BS hides
 * what came before it. Every control character (C0, DEL, C1: Unicode category Cc) is written as a
 * visible `\uXXXX` escape instead, which also keeps JSON text valid JSON with the same value.
 */

const CONTROL = /\p{Cc}/u;
const CONTROLS = /\p{Cc}/gu;
/** The same, less line feed and tab: multi-line text (an answer, a file) keeps its lines. */
const CONTROLS_BUT_LINES = /(?![\n\t])\p{Cc}/gu;

const escaped = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * `text` with its control characters escaped. With `lines: true` line feeds and tabs stay (and a
 * CRLF becomes a line feed); otherwise the text is kept on one line.
 */
export function terminalText(text: string, options: { readonly lines?: boolean } = {}): string {
  if (!CONTROL.test(text)) return text;
  return options.lines
    ? text.replace(/\r\n/g, "\n").replace(CONTROLS_BUT_LINES, escaped)
    : text.replace(CONTROLS, escaped);
}

/** The first control character of `text` as `U+XXXX`, or undefined when it has none. */
export function controlCharacterIn(text: string): string | undefined {
  const found = CONTROL.exec(text);
  return found ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}` : undefined;
}
