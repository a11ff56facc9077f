// Imports the specifier given as argument in this fresh process and prints, as one JSON line, how
// long the import took, which packages it loaded and which of Effect's heaviest modules: every URL the ESM loader resolved (seen by a
// resolve hook on the loader's thread) and every CommonJS module in require's cache.
import { createRequire, register } from "node:module";
import { MessageChannel } from "node:worker_threads";

const HOOKS = `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}`;

const { port1, port2 } = new MessageChannel();
const urls = new Set();
port1.on("message", (url) => urls.add(url));
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, {
  data: { port: port2 },
  transferList: [port2],
});

const started = performance.now();
await import(process.argv[2]);
const ms = performance.now() - started;
// The hook's last messages may still be in flight.
await new Promise((resolve) => setTimeout(resolve, 100));
port1.close();

const files = [...urls, ...Object.keys(createRequire(import.meta.url).cache)];
const packages = new Set();
for (const file of files) {
  const names = [...file.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)];
  if (names.length > 0) packages.add(names.at(-1)[1]);
}
// Effect's own modules that weigh most at import and that a SQLite host needs only later, if at all.
const heavyEffectModules = files
  .map((file) => file.match(/node_modules\/effect\/dist\/esm\/(Schema|Stream|Arbitrary)\.js$/)?.[1])
  .filter((name) => name !== undefined)
  .sort();
console.log(JSON.stringify({ ms, packages: [...packages].sort(), heavyEffectModules }));
