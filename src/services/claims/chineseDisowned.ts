import type { Attribution } from "./agentContext.js";

/**
 * Chinese: an answer that opens by saying the work is not the writer's but someone's it names
 * (昨晚的切换不是我操作的，是值班的同事处理的; ## 已经有人修了), whose later lines with the subject left out report that
 * person's steps. A line that names the writer (我已经…) is still the writer's. (An answer that says
 * only what it did not touch — 没有改任何代码，跑了一遍测试 — still reports the steps it did take.)
 */

/**
 * The work disowned and handed to someone named (不是我操作的，是…), or said at the top to be done by
 * someone already (## 已经有人修了).
 */
const DONE_BY_OTHER =
  /不是我(?:这边|本人)?(?:亲自)?(?:操作|做|处理|执行|改|弄|动|提交|合并|发|切换|部署)的[，,。]?\s*(?:是|而是|由)|(?:^|\n)\s*(?:#{1,6}\s*|\*\*)?(?:已经|早就)有(?:人|同事|别的同事)(?:修|做|处理|改|提交|合并|解决)(?:好|掉|完)?了/;
/** Whether the answer gives its work to someone else in its opening lines. */
export function disownedWork(answer: string): boolean {
  return DONE_BY_OTHER.test(answer.slice(0, 300));
}

/** Who did a step with its subject left out, in an answer that disowns its work. */
export function disownedLine(plain: string): Attribution | undefined {
  if (/[我咱]|(?:帮|替|为)(?:你|您)/.test(plain)) return undefined;
  return { agent: "third party", reason: "an answer that names another as the doer" };
}
