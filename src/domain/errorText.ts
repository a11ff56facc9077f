/**
 * The one way an unknown thrown value becomes text: an Error's message, an object's `message`
 * (Effect's tagged errors, a rejected value shaped like one), or the value itself; `firstLine`
 * keeps one-line reports one line.
 */
export function errorText(error: unknown, options: { readonly firstLine?: boolean } = {}): string {
  const text =
    typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error);
  return options.firstLine ? (text.split("\n")[0] ?? "") : text;
}
