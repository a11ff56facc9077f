/**
 * `node --import <this file>`: the benchmarks run the package as a host gets it — the compiled
 * `dist/` of the checkout — rather than its TypeScript sources compiled on the fly. tsx keeps
 * function names by wrapping every named function in a helper that defines `name`, which gives
 * each closure its own property store; per run that costs heap and CPU no host pays. A benchmark
 * that imports `<checkout>/src/x.js` gets `<checkout>/dist/x.js` when the build has it.
 */
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
export async function resolve(specifier, context, next) {
  if ((specifier.startsWith("./") || specifier.startsWith("../")) && context.parentURL?.startsWith("file:")) {
    const target = fileURLToPath(new URL(specifier, context.parentURL));
    const at = target.lastIndexOf("/src/");
    if (at >= 0 && target.endsWith(".js")) {
      const built = target.slice(0, at) + "/dist/" + target.slice(at + 5);
      if (existsSync(built)) return { url: pathToFileURL(built).href, shortCircuit: true };
    }
  }
  return next(specifier, context);
}
`)}`,
);
