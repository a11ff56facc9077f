import type { Attribution } from "./agentContext.js";

/**
 * Chinese: completed-looking verbs spoken by someone the sentence itself marks as not the writer
 * reporting its work — the signer of a form (本人已阅读并理解…: 本人 is how a form's signer names
 * themselves, never how an assistant does), a line of a script under its speaker's label (女：过去的一年，
 * 我们一起走进了…), a guess about what happened on the user's side (我猜…填成了未来的日期), the act a refusal
 * names after its colon (这个忙我帮不了：批量编写…发到店铺里), and what a body or an organ does in an
 * explanation (下丘脑把调定点调高了). Read in `chineseAgent` after the steps that are no step
 * (chineseNoStep.ts).
 */

/** The verb's own clause, spaces taken out. */
const ownClauseOf = (before: string) => (before.split(/[，,；;：:。！!？?]/).at(-1) ?? "").replace(/\s+/g, "");

/** 本人 as the subject (本人已阅读, 本人确认…已), not a possessive nor in person (本人的, 需本人到场). */
const SIGNER = /(?:^|[，,。；;：:\s])本人(?!的|到场|亲自|持|携带|签字确认后)/;
/**
 * A speaker's label opening a line of a script or a dialogue: 女：, 男：, 合：, 主持人：, 甲：, A：. The
 * voice of the one who performs it, not a report.
 */
const SCRIPT_SPEAKER =
  /^\s*(?:\*\*)?(?:男|女|合|甲|乙|丙|主持人|男主持|女主持|旁白|[A-D]|主持人[A-D甲乙]|男声|女声|嘉宾)(?:\*\*)?\s*[：:]/;
/**
 * A guess, before the verb: 我猜, 估计, 大概率是, 很可能是, 八成是 — what may have happened, not a step
 * anyone reports taking.
 */
const GUESS = /(?<![没不])(?:我猜|猜测是|估计是?|大概率(?:是)?|很可能是|八成是|多半是|怀疑是)/g;
/** A refusal that names the act after its colon: 这个忙我帮不了：, 这件事我不能做：. */
const REFUSAL_THEN_ACT =
  /(?:帮不了|不能帮(?:你|您)?|无法帮(?:你|您)?|没法帮(?:你|您)?|不能做|不会做|做不了|不能替(?:你|您)做)[^。！!？?]{0,6}[：:]/;
/** A body, an organ or a part of it as the one who acts in an explanation: 下丘脑把…, 免疫系统已经…. */
const BODY_DOER =
  /(?:^|[，,。；;：:\s])(?:人体|身体|大脑|下丘脑|垂体|甲状腺|肝脏?|肾脏?|心脏|胰腺|胰岛|免疫系统|白细胞|抗体|神经系统|交感神经|副交感神经|肠道|胃)(?:会|就|也|先)?把/;

export function chineseOtherSpeaker(plain: string, before: string): Attribution | undefined {
  const clause = ownClauseOf(before);
  if (SIGNER.test(before) && !/我(?!们)/.test(plain)) return { agent: "user", reason: "the signer of a form" };
  if (SCRIPT_SPEAKER.test(plain) && !/(?:帮|替|为)(?:你|您)/.test(plain)) {
    return { agent: "third party", reason: "a line of a script, under its speaker's label" };
  }
  // (我猜大概率是…录错了（比如填成了未来的日期）: the writer guesses at what happened; a step of its
  // own marked done in the verb's clause — 我猜你会用到，已经改好了 — stays.)
  // (初步怀疑是连接池配置；复盘文档我放在了…: only up to the writer's own voice or a new clause.)
  const guess = [...before.matchAll(GUESS)].at(-1);
  const guessed = guess ? before.slice((guess.index ?? 0) + guess[0].length) : undefined;
  if (
    guessed !== undefined &&
    !/[我咱；;]/.test(guessed) &&
    !/已|刚/.test(clause) &&
    !/(?:帮|替|为)(?:你|您)/.test(plain)
  ) {
    return { agent: "none", reason: "a guess at what happened" };
  }
  const refusal = REFUSAL_THEN_ACT.exec(before);
  if (refusal && !/已|刚/.test(before.slice(refusal.index))) {
    return { agent: "none", reason: "the act a refusal names and turns down" };
  }
  if (BODY_DOER.test(before) && !/[我咱你您]/.test(clause)) {
    return { agent: "none", reason: "what a body or an organ does, explained" };
  }
  return undefined;
}
