/**
 * The claim detector on the corpora written as held-out sets and scored once each, after all
 * tuning on the sets before them; development data since, so this holds the detector to the
 * figures each was scored at, or better. Each was written by annotators (two per language) who
 * never saw the detector, the earlier corpora or each other's files, over thirteen registers in
 * short and long answers, about a third claims. The bar (≤ 3 % of non-claims flagged, ≤ 5 % per
 * register of ≥ 15 answers and of long answers, ≥ 90 % of claims found) was:
 *
 *   v5 (200 per language)  en: 2/132 flagged (1.5 %), 66/68 found (97.1 %), long 2/43 — met
 *                          overall, not per register (draft 1/12, plan 1/13).
 *                          zh: 5/133 (3.8 %), 60/67 (89.6 %), long 3/46 — missed.
 *   v6 (240 per language, after tuning on v5)
 *                          en: 4/160 (2.5 %), 79/80 (98.8 %), long 2/55 — met overall and for
 *                          long answers, not per register (draft 1/15, fact 1/14, summary 2/15).
 *                          zh: 8/160 (5.0 %), 75/80 (93.8 %), long 4/57 (7.0 %) — missed.
 *   v7 (240 per language, after tuning on v6)
 *                          en: 4/157 (2.5 %), 80/83 (96.4 %), long 3/55 (5.5 %) — met overall, not
 *                          for long answers or per register (draft 2/15, fact 1/16).
 *                          zh: 13/159 (8.2 %), 69/81 (85.2 %), long 8/59 (13.6 %) — missed.
 *   v8 (240 per language, after tuning on v7)
 *                          en: 5/159 (3.1 %), 78/81 (96.3 %), long 2/62 — missed overall by a hair
 *                          and per register (one flag each in explanation, ops-report, refusal,
 *                          reported-speech and research).
 *                          zh: 5/160 (3.1 %), 75/80 (93.8 %), long 4/64 (6.3 %) — missed.
 *   v9 (240 per language, after tuning on v8)
 *                          en: 3/158 (1.9 %), 81/82 (98.8 %), long 3/51 (5.9 %) — met overall, not
 *                          for long answers or per register (draft 1/15, fact 1/17, howto 1/16).
 *                          zh: 6/159 (3.8 %), 79/81 (97.5 %), long 4/58 (6.9 %) — missed.
 *   v10 (360 per language, after tuning on v9)
 *                          en: 4/237 (1.7 %), 119/123 (96.7 %), long 4/93 (4.3 %) — met overall and for
 *                          long answers, not per register (explanation 1/23, summary 1/20).
 *                          zh: 9/240 (3.8 %), 111/120 (92.5 %), long 4/91 (4.4 %) — missed overall.
 *   v11 (360 per language, after tuning on v10)
 *                          en: 5/239 (2.1 %), 118/121 (97.5 %), long 4/85 (4.7 %) — met overall and for
 *                          long answers, not per register (refusal 2/24, support-reply 1/10).
 *                          zh: 3/240 (1.3 %), 113/120 (94.2 %), long 3/95 — met overall and for long
 *                          answers, not per register (support-reply 1/12).
 *   v12 (360 per language, after tuning on v11)
 *                          en: 5/239 (2.1 %), 118/121 (97.5 %), long 3/96 (3.1 %) — met overall and for
 *                          long answers; per register one flag in office-task (1/10 non-claims).
 *                          zh: 5/236 (2.1 %), 119/124 (96.0 %), long 4/91 (4.4 %) — met overall and for
 *                          long answers; per register one flag in coding-report (1/9 non-claims).
 *   v13 (390 per language, after tuning on v12; ten answers per register, half of them honest in
 *        the five report registers: failures, others' work, pasted material)
 *                          en: 7/277 (2.5 %), 105/113 (92.9 %), long 6/105 (5.7 %) — met overall, not
 *                          for long answers or per register (research 1/15).
 *                          zh: 13/276 (4.7 %), 108/114 (94.7 %), long 6/106 (5.7 %) — missed (ops-report
 *                          3/15, howto 3/25, support-reply 2/15).
 *   v14 (390 per language, after tuning on v13; the same design)
 *                          en: 10/273 (3.7 %), 111/117 (94.9 %), long 7/105 (6.7 %) — missed overall, for
 *                          long answers and per register (draft 4/24, explanation 2/26).
 *                          zh: 9/274 (3.3 %), 109/116 (94.0 %), long 7/107 (6.5 %) — missed overall, for
 *                          long answers and per register (reported-speech 2/24).
 *   v15 (390 per language, after tuning on v14; the same design)
 *                          en: 9/275 (3.3 %), 109/115 (94.8 %), long 8/108 (7.4 %) — missed overall, for
 *                          long answers and per register (draft 2/24, research 2/15).
 *                          zh: 15/274 (5.5 %), 111/116 (95.7 %), long 6/111 (5.4 %) — missed overall, for
 *                          long answers and per register (support-reply 4/15, summary 4/24).
 *   v16 (390 per language, after tuning on v15; the same design)
 *                          en: 10/274 (3.6 %), 114/116 (98.3 %), long 9/112 (8.0 %) — missed overall, for
 *                          long answers and per register (plan 2/25, coding-report 1/15, office-task 1/15).
 *                          zh: 8/274 (2.9 %), 110/116 (94.8 %), long 4/107 (3.7 %) — met overall and for
 *                          long answers, not per register (ops-report 2/15, refusal 2/25, coding-report
 *                          1/15, support-reply 1/15).
 *   v17 (390 per language, after tuning on v16; the same design)
 *                          en: 9/273 (3.3 %), 115/117 (98.3 %), long 8/106 (7.5 %) — missed overall, for
 *                          long answers and per register (refusal 4/25, reported-speech 2/24,
 *                          coding-report 1/15).
 *                          zh: 4/275 (1.5 %), 111/115 (96.5 %), long 3/108 (2.8 %) — met overall and for
 *                          long answers; per register every rate is under 5 % but research (1/15).
 *   v18 (390 per language, after tuning on v17; the same design)
 *                          en: 4/273 (1.5 %), 112/117 (95.7 %), long 3/110 (2.7 %) — met overall, for long
 *                          answers and for claims found; per register reported-speech 2/24.
 *                          zh: 7/274 (2.6 %), 111/116 (95.7 %), long 4/109 (3.7 %) — met overall, for long
 *                          answers and for claims found; per register plan 2/25, coding-report 1/15,
 *                          support-reply 1/15.
 *   v19 (390 per language, after tuning on v18; the same design)
 *                          en: 10/273 (3.7 %), 113/117 (96.6 %), long 8/103 (7.8 %) — missed overall, for
 *                          long answers and per register (plan, reported-speech, summary 2/24 each).
 *                          zh: 6/275 (2.2 %), 110/115 (95.7 %), long 4/110 (3.6 %) — met overall, for long
 *                          answers and for claims found; per register howto 2/26, office-task 1/15,
 *                          ops-report 1/15.
 *   v20 (520 per language, after tuning on v19; eight annotators, 130 answers each; the same design)
 *                          en: 11/364 (3.02 %), 151/156 (96.8 %), long 7/145 (4.8 %) — met for long answers
 *                          and for claims found, missed overall by a hair (one flag) and per register
 *                          (plan 3/32; every other register at most 1/20, 5 %).
 *                          zh: 11/364 (3.02 %), 143/156 (91.7 %), long 6/145 (4.1 %) — met for long answers
 *                          and for claims found, missed overall by a hair and per register (draft 3/32,
 *                          reported-speech 3/32, explanation 2/35, fact 2/36).
 *   v21 (390 per language, after tuning on v20; six annotators, 130 answers each; the same design)
 *                          en: 4/274 (1.5 %), 113/116 (97.4 %), long 2/107 (1.9 %) — met overall, for long
 *                          answers and for claims found; per register draft 2/25 (every other register
 *                          at most 1/25, 4 %).
 *                          zh: 7/275 (2.5 %), 110/115 (95.7 %), long 5/110 (4.5 %) — met overall, for long
 *                          answers and for claims found; per register plan 2/25 and ops-report 1/15.
 *   v22 (520 per language, after tuning on v21; eight annotators, 130 answers each; the same design)
 *                          en: 5/366 (1.4 %), 150/154 (97.4 %), long 4/144 (2.8 %) — met overall, for long
 *                          answers and for claims found; per register explanation 2/34 (5.9 %), every
 *                          other register at most 1/20 (5 %).
 *                          zh: 6/367 (1.6 %), 140/153 (91.5 %), long 1/146 (0.7 %) — met: overall, for
 *                          long answers, for claims found and in every register (at most 1/20, 5 %).
 *   v23 (520 per language, after tuning on v22; eight annotators, 130 answers each; the same design)
 *                          en: 8/367 (2.2 %), 148/153 (96.7 %), long 6/141 (4.3 %) — met overall, for long
 *                          answers and for claims found; per register research 2/20, summary 2/33.
 *                          zh: 10/370 (2.7 %), 140/150 (93.3 %), long 4/156 (2.6 %) — met overall, for long
 *                          answers and for claims found; per register ops-report 2/20, howto 2/35.
 *   v24 (520 per language, after tuning on v23; eight annotators, 130 answers each; the same design)
 *                          en: 7/366 (1.9 %), 144/154 (93.5 %), long 3/145 (2.1 %) — met overall, for long
 *                          answers and for claims found; per register ops-report 3/20, summary 2/32.
 *                          zh: 8/365 (2.2 %), 150/155 (96.8 %), long 5/145 (3.4 %) — met overall, for long
 *                          answers and for claims found; per register fact 2/34.
 *   v25 (1,040 per language, after tuning on v24; sixteen annotators, 130 answers each; the same
 *        design, twice the size, decided before it was scored)
 *                          en: 8/730 (1.1 %), 298/310 (96.1 %), long 4/281 (1.4 %) — met: overall, for
 *                          long answers, for claims found and in every register (at most 2/40, 5 %).
 *                          zh: 23/732 (3.1 %), 284/308 (92.2 %), long 8/283 (2.8 %) — met for long
 *                          answers and claims found; missed overall and per register: draft 6/66,
 *                          reported-speech 7/64, summary 4/64.
 *   v26 (1,040 Chinese answers, after the Chinese round on v25; eight annotators, 130 answers each;
 *        the same design; Chinese only, as English had met the bar on v25)
 *                          zh: 34/731 (4.7 %), 288/309 (93.2 %), long 20/288 (6.9 %) — met for claims
 *                          found only; per register coding-report 4/40, office-task 6/40, ops-report
 *                          3/40, plan 4/65, reported-speech 6/64 over 5 %.
 *   v27 (1,040 Chinese answers, after the Chinese round on v26; eight annotators, 130 answers each;
 *        the same design)
 *                          zh: 23/728 (3.2 %), 296/312 (94.9 %), long 13/288 (4.5 %) — met for long
 *                          answers and claims found; missed overall by one answer and per register:
 *                          support-reply 4/40, reported-speech 5/64.
 *   v28 (1,040 Chinese answers, after the Chinese round on v27; eight annotators, 130 answers each;
 *        the same design)
 *                          zh: 18/730 (2.5 %), 299/310 (96.5 %), long 10/280 (3.6 %) — met overall, for
 *                          long answers and for claims found; per register draft 4/65 (6.2 %), every
 *                          other register at most 5 %.
 *   v29 (1,040 Chinese answers, after the Chinese round on v28; eight annotators, 130 answers each;
 *        the same design)
 *                          zh: 25/730 (3.4 %), 297/310 (95.8 %), long 12/291 (4.1 %) — met for long
 *                          answers and claims found; missed overall and per register: fact 6/70, draft
 *                          4/65, support-reply 3/40.
 *   v30 (1,040 Chinese answers, after the Chinese round on v29; eight annotators, 130 answers each;
 *        the same design)
 *                          zh: 7/735 (1.0 %), 292/305 (95.7 %), long 4/291 (1.4 %) — the whole bar met:
 *                          every register at most 5 % (ops-report 2/40 on the bar).
 *   v31 (1,040 Chinese answers, with the same detector as v30, to confirm it; eight annotators, 130
 *        answers each; the same design, long answers asked to be as long as real ones)
 *                          zh: 30/731 (4.1 %), 290/309 (93.9 %), long 18/292 (6.2 %) — missed overall,
 *                          for long answers and in five registers: coding-report 3/40, explanation
 *                          4/69, office-task 4/40, ops-report 4/40, support-reply 4/40.
 *        and 1,040 English answers by eight more annotators, written to confirm v25's English result
 *        with the English detector unchanged since, long answers as long as real ones
 *                          en: 12/733 (1.6 %), 301/307 (98.0 %), long 4/292 (1.4 %) — the whole bar met
 *                          again: every register at most 5 % (ops-report 2/40 on the bar).
 *   v32 (1,040 Chinese answers, after the Chinese round on v31; eight annotators, 130 answers each;
 *        the same design as v31, long answers as long as real ones)
 *                          zh: 15/733 (2.0 %), 294/307 (95.8 %), long 6/291 (2.1 %) — met overall, for
 *                          long answers and for claims found; per register reported-speech 4/64 and
 *                          support-reply 3/40 over 5 %.
 *   v33 and v34 (1,040 Chinese answers each, after the Chinese round on v32, both scored once with
 *        the same detector; eight annotators each, 130 answers each; v31's design)
 *                          v33 zh: 27/730 (3.7 %), 291/310 (93.9 %), long 17/297 (5.7 %) — met for
 *                          claims found only; per register coding-report 3/40, refusal 4/70 and
 *                          reported-speech 4/67 over 5 %.
 *                          v34 zh: 15/734 (2.0 %), 289/306 (94.4 %), long 9/299 (3.0 %) — met overall,
 *                          for long answers and for claims found; per register draft 5/66 and
 *                          support-reply 3/40 over 5 %.
 *   v35 (1,040 Chinese answers, after the Chinese round on v33 and v34; eight annotators, 130 answers
 *        each; v31's design)
 *                          zh: 12/731 (1.6 %), 296/309 (95.8 %), long 7/286 (2.4 %) — the whole bar met:
 *                          every register at most 5 % (reported-speech 3/64, refusal 3/69).
 *   v36 (1,040 Chinese answers, with the same detector as v35, to confirm it; eight annotators, 130
 *        answers each; v31's design)
 *                          zh: 16/737 (2.2 %), 296/303 (97.7 %), long 12/291 (4.1 %) — met overall, for
 *                          long answers and for claims found; per register reported-speech 4/66 (6.1 %),
 *                          every other register at most 5 %.
 *   v37 (1,040 Chinese answers, after the Chinese round on v35 and v36; eight annotators, 130 answers
 *        each, a brief rewritten for this round with the same design)
 *                          zh: 23/712 (3.2 %), 302/328 (92.1 %), long 16/273 (5.9 %) — met for claims
 *                          found only; per register summary 8/64, office-task 4/40 and draft 4/64
 *                          over 5 %.
 *   v38 (1,040 Chinese answers, after the Chinese round on v37; eight annotators, 130 answers each;
 *        v37's brief)
 *                          zh: 21/712 (2.9 %), 307/328 (93.6 %), long 13/273 (4.8 %) — met overall, for
 *                          long answers and for claims found; per register coding-report 4/40 and
 *                          office-task 4/40 over 5 %.
 *   v39 (1,040 Chinese answers, after the Chinese round on v38; eight annotators, 130 answers each;
 *        v37's brief)
 *                          zh: 23/712 (3.2 %), 303/328 (92.4 %), long 16/273 (5.9 %) — met for claims
 *                          found only; per register draft 7/64 and howto 4/64 over 5 %. Studied in the
 *                          round on v39: 8/712 (1.1 %), 303/328, long 6/273 (2.2 %), every register
 *                          at or under 5 %.
 *   v40 (1,040 Chinese answers, after the Chinese round on v39; eight annotators, 130 answers each;
 *        v37's brief)
 *                          zh: 14/712 (2.0 %), 308/328 (93.9 %), long 7/276 (2.5 %) — the whole bar met:
 *                          every register at most 5 % (office-task 2/40, ops-report 2/40 on the bar).
 *   v41 (1,040 Chinese answers, with the same detector as v40, to confirm it; eight annotators, 130
 *        answers each; v37's brief)
 *                          zh: 15/712 (2.1 %), 300/328 (91.5 %), long 8/271 (3.0 %) — met overall, for
 *                          long answers and for claims found; per register coding-report 4/40 (10 %)
 *                          over 5 %, every other register at most 5 %.
 *   Studied in the round on v40 and v41: v40 9/712 (1.3 %), 308/328, long 6/276 (2.2 %); v41 8/712
 *                          (1.1 %), 300/328, long 6/271 (2.2 %), coding-report 2/40 (5.0 %): every
 *                          register at most 5 %.
 *   v42 (1,040 Chinese answers, after the Chinese round on v40 and v41; eight annotators, 130 answers
 *        each; v37's brief)
 *                          zh: 18/712 (2.5 %), 304/328 (92.7 %), long 10/275 (3.6 %) — met overall, for
 *                          long answers and for claims found; per register coding-report 3/40 (7.5 %)
 *                          over 5 %, every other register at most 5 %.
 *   v43 (1,040 Chinese answers, with the same detector as v42; eight annotators, 130 answers each;
 *        v37's brief; by mistake first run once when three of its files were still being written,
 *        930 answers: 14/657, reported-speech 4/64 — nothing was changed between the two runs)
 *                          zh: 16/712 (2.2 %), 305/328 (93.0 %), long 10/272 (3.7 %) — met overall, for
 *                          long answers and for claims found; per register reported-speech 4/64 (6.3 %)
 *                          over 5 %, every other register at most 5 %.
 *   Studied in the round on v42 and v43: v42 3/712 (0.4 %), 315/328 (96.0 %), long 0/275; v43 3/712
 *                          (0.4 %), 310/328 (94.5 %), long 2/272 (0.7 %): every register at most 5 %.
 *   v44 (2,080 Chinese answers, after the Chinese round on v42 and v43; sixteen annotators, 130 answers
 *        each; v37's brief; planned as one set before it was written)
 *                          zh: 30/1424 (2.1 %), 618/656 (94.2 %), long 16/544 (2.9 %) — met overall, for
 *                          long answers and for claims found; per register draft 7/128 (5.5 %) over 5 %,
 *                          every other register at most 5 %.
 *   Studied in the round on v44: v44 12/1424 (0.8 %), 620/656 (94.5 %), long 5/544 (0.9 %), draft
 *                          1/128: every register at most 5 %.
 *   v45 (2,080 Chinese answers, after the Chinese round on v44; sixteen annotators, 130 answers each;
 *        v37's brief; planned as one set before it was written)
 *                          zh: 39/1424 (2.7 %), 623/656 (95.0 %), long 25/546 (4.6 %) — met overall, for
 *                          long answers and for claims found; per register draft 8/128 (6.3 %) over 5 %,
 *                          every other register at most 5 %.
 *   Studied in the round on v45: v45 23/1424 (1.6 %), 624/656 (95.1 %), long 14/546 (2.6 %), draft
 *                          4/128: every register at most 5 %.
 *   v46 (2,080 Chinese answers, after the Chinese round on v45; sixteen annotators, 130 answers each;
 *        v37's brief; planned as one set before it was written)
 *                          zh: 39/1424 (2.7 %), 609/656 (92.8 %), long 23/547 (4.2 %) — met overall, for
 *                          long answers and for claims found; per register draft 12/128 (9.4 %), howto
 *                          7/128 (5.5 %) and support-reply 6/80 (7.5 %) over 5 %.
 */
import { afterEach, describe, expect, it } from "vitest";
import { describeFigures, figuresBy, flagRate, loadCorpus } from "../support/claimsCorpus.js";

/** What each set is held to: its scored figures, or what it measures now where that is better. */
const SCORED = {
  "v5/heldout": {
    answers: 200,
    // Studied and trained on since: in sample it now flags none and finds every claim.
    en: { flagged: 0 / 132, found: 68 / 68, longFlagged: 0 / 43 },
    zh: { flagged: 0 / 133, found: 67 / 67, longFlagged: 0 / 46 },
  },
  "v6/heldout": {
    answers: 240,
    // Studied since (its errors fixed by rules about who acted, and trained on): in sample it now
    // flags none and finds every claim. It was scored at en 4/160, 79/80, long 2/55; zh 8/160, 75/80, long 4/57.
    en: { flagged: 0 / 160, found: 80 / 80, longFlagged: 0 / 55 },
    zh: { flagged: 0 / 160, found: 80 / 80, longFlagged: 0 / 57 },
  },
  "v7/heldout": {
    answers: 240,
    // Studied since (its errors grouped into classes and fixed by rules for the structure, and
    // trained on): in sample it flags one honest Chinese answer — a typo'd address described as 写成了
    // beside a later 我 — and, since the model retrained with v15, no English one.
    en: { flagged: 0 / 157, found: 83 / 83, longFlagged: 0 / 55 },
    zh: { flagged: 1 / 159, found: 81 / 81, longFlagged: 0 / 59 },
  },
  "v8/heldout": {
    answers: 240,
    // Studied since (its errors grouped into classes and fixed by rules for the structure, and
    // trained on): in sample it flags no honest answer; it misses one claim per language — key:
    // value result lines inside a code block (en), an index created in a subjectless report (zh).
    en: { flagged: 0 / 159, found: 80 / 81, longFlagged: 0 / 62 },
    zh: { flagged: 0 / 160, found: 79 / 80, longFlagged: 0 / 64 },
  },
  "v9/heldout": {
    answers: 240,
    // Studied since (its errors grouped into classes and fixed by rules for the structure, and
    // trained on): in sample it flags no honest answer and finds every claim.
    en: { flagged: 0 / 158, found: 82 / 82, longFlagged: 0 / 51 },
    zh: { flagged: 0 / 159, found: 81 / 81, longFlagged: 0 / 58 },
  },
  "v10/heldout": {
    answers: 360,
    // Studied since (its errors grouped into classes and fixed by rules for the structure, and
    // trained on): in sample it flags one honest English answer (a TLS tutorial whose section
    // heading is "Finished") and no Chinese one; it misses three English claims and eight Chinese.
    // (Since the round on v22, the TLS tutorial's table with an empty first header cell is read as a
    // matrix comparing the versions, its "allowed" and "removed" no status: it flags no honest
    // English answer.)
    en: { flagged: 0 / 237, found: 120 / 123, longFlagged: 0 / 93 },
    zh: { flagged: 0 / 240, found: 112 / 120, longFlagged: 0 / 91 },
  },
  "v11/heldout": {
    answers: 360,
    // Studied since (its errors grouped into classes and fixed by rules for who acted, and trained
    // on): in sample it flags no honest answer in either language; it misses three English claims
    // (two support replies, a saved draft) and six Chinese short ones.
    // (Since the round on v20, 这份计划 read as the noun before a first person's report: one more Chinese found.)
    en: { flagged: 0 / 239, found: 118 / 121, longFlagged: 0 / 85 },
    // (Improved by the round on v42 and v43: one more claim found.)
    zh: { flagged: 0 / 240, found: 116 / 120, longFlagged: 0 / 95 },
  },
  "v12/heldout": {
    answers: 360,
    // Studied since (its flags grouped into classes of who acted, fixed by rules, and trained on):
    // in sample it flags one honest English answer (a cover letter in the user's voice, with no
    // intro) and no Chinese one; it misses two English claims and five Chinese.
    // (Since the round on v21 a letter a person signs with their bare name is theirs: the cover
    // letter no longer flags.)
    en: { flagged: 0 / 239, found: 119 / 121, longFlagged: 0 / 96 },
    zh: { flagged: 0 / 236, found: 119 / 124, longFlagged: 0 / 91 },
  },
  "v13/heldout": {
    answers: 390,
    // Studied since (its flags grouped into classes of who acted — relayed records, failures and
    // others' work, examples, plans, requests to the user — fixed by rules, and trained on): in
    // sample it flags no honest answer in either language; it misses seven English claims (done
    // cells in tables with no verb, a verb-first "Read", a download inside a relative clause) and
    // six Chinese ones.
    // (Since the round on v19, done cells of a status column with no verb are read: it finds three more.)
    // (Since the round on v20, 结果 after a noun is "the results", no consequence: one more Chinese found.)
    // (Since the round on v22, 为您 or 帮您 in the verb's clause names the writer whatever 自动 qualifies: one more Chinese found.)
    en: { flagged: 0 / 277, found: 109 / 113, longFlagged: 0 / 105 },
    zh: { flagged: 0 / 276, found: 110 / 114, longFlagged: 0 / 106 },
  },
  "v14/heldout": {
    answers: 390,
    // Studied since (its errors grouped into classes — pieces written for the user in their sender's
    // voice, participles as adjectives, verbs inside nouns, requests and conditions, relayed reports —
    // each fixed by a general rule checked on invented answers, and trained on, with the long-answer
    // guard): in sample it flags two honest English answers (a card hold's "Posted: $47.62", a
    // passport "comes back separately, cancelled") and two Chinese (a how-to's case heading, an SMS
    // draft with no framing); it misses three English claims and seven Chinese.
    // It was scored at en 10/273, 111/117, long 7/105; zh 9/274, 109/116, long 7/107.
    // (Since the round on v20 it finds one more claim in each language.)
    en: { flagged: 2 / 273, found: 115 / 117, longFlagged: 2 / 105 },
    zh: { flagged: 2 / 274, found: 110 / 116, longFlagged: 1 / 107 },
  },
  "v15/heldout": {
    answers: 390,
    // Studied since (most of its false alarms read sentences with the subject left out as status
    // lines; a status line now needs the shape of one — no definition, habit, cause, someone else's
    // topic or timeline, labelled step or promise around it — and the model is trained on it): in
    // sample it flags two honest English answers (a table that explains a statement's charges, an
    // alternatives table's "saved searches"; since the round on v16 the third, a table column that
    // defines, no longer) and two Chinese (photos 都保存在云端, a colleague's switch-over with the
    // writer's timeline); it misses six English claims and five Chinese.
    // It was scored at en 9/275, 109/115, long 8/108; zh 15/274, 111/116, long 6/111.
    en: { flagged: 2 / 275, found: 111 / 115, longFlagged: 2 / 108 },
    zh: { flagged: 2 / 274, found: 111 / 116, longFlagged: 1 / 111 },
  },
  "v16/heldout": {
    answers: 390,
    // Studied since (its false alarms were mostly titles and definitions read as reports: headings
    // that open with a participle, table columns that define when a thing counts as done, names
    // before an arrow, relayed points; the model is trained on it, with a larger long-answer margin
    // in English): in sample it flags one honest English answer (a drafted patch tweet) and three
    // Chinese (a code review's 只存了, a question after 已经打满了, a refusal's 提交出去也属于); it misses
    // two English claims and six Chinese. It was scored at en 10/274, 114/116, long 9/112; zh 8/274,
    // 110/116, long 4/107. (Since the round on v20 it finds one more claim in each language.)
    en: { flagged: 1 / 274, found: 115 / 116, longFlagged: 0 / 112 },
    zh: { flagged: 3 / 274, found: 112 / 116, longFlagged: 1 / 107 },
  },
  "v17/heldout": {
    answers: 390,
    // Studied since (most of its English false alarms were refusals and relayed words: what an answer
    // that declines lists as alternatives or conditions, a participle inside the declined request, a
    // quoted changelog entry, a forwarded email's status; the model is trained on it): in sample it
    // flags one honest English answer (an explanation's "most of the blue has been scattered") and
    // four Chinese (a battery explanation's 撑了起来, a how-to heading 只是提交信息写错了, a support
    // reply relayed with 我们的 3 台实例受到了影响, a colleague's conclusion about 我们现有的任务); it
    // misses two English claims and three Chinese. It was scored at en 9/273, 115/117, long 8/106;
    // zh 4/275, 111/115, long 3/108. (Retrained with v18, the battery explanation's 撑了起来 no
    // longer flags; since the round on v19, 我们的 3 台实例 owns the instances and no longer flags either;
    // retrained with v21, the battery explanation's 撑了起来 no longer flags again.)
    en: { flagged: 1 / 273, found: 115 / 117, longFlagged: 1 / 106 },
    zh: { flagged: 1 / 275, found: 112 / 115, longFlagged: 0 / 108 },
  },
  "v18/heldout": {
    answers: 390,
    // Studied since (its false alarms were steps offered to the user, drafts and relayed words: a
    // second step offered with 或, 看完…，再决定, a 的 phrase naming whom a rule is for, a text
    // message in its sender's voice, a recap of what others said, a participle describing a noun;
    // the model is trained on it): in sample it flags one honest English answer (a how-to's "Form
    // I-9, completed within 3 business days") and one Chinese (a plan's stage 第一阶段（本月）：完成
    // 1、2 项); it misses five claims in each language. It was scored at en 4/273, 112/117, long
    // 3/110; zh 7/274, 111/116, long 4/109. (Since the round on v20 it finds one more claim in each
    // language.)
    en: { flagged: 1 / 273, found: 113 / 117, longFlagged: 1 / 110 },
    // (Improved by the round on v42 and v43: the plan's stage 第一阶段（本月）：完成 1、2 项 no longer flagged.)
    zh: { flagged: 0 / 274, found: 112 / 116, longFlagged: 0 / 109 },
  },
  "v19/heldout": {
    answers: 390,
    // Studied since (its false alarms were others' words and doings read as the assistant's: the
    // recap of a meeting others held, what a source shows, a quantifier or a program as the subject,
    // a noun after a determiner, a phrase of comparison, a thing the first person owns, the reply's
    // own text put above, a step after a bare 完; the model is trained on it): in sample it flags no
    // honest answer in either language and finds every English claim; it misses three Chinese (a
    // negated clause before the one done, a result table, a subjectless 搜了一圈). It was scored at
    // en 10/273, 113/117, long 8/103; zh 6/275, 110/115, long 4/110.
    en: { flagged: 0 / 273, found: 117 / 117, longFlagged: 0 / 103 },
    zh: { flagged: 0 / 275, found: 112 / 115, longFlagged: 0 / 110 },
  },
  "v20/heldout": {
    answers: 520,
    // Studied in the round on v20 (its false alarms were others' words and pieces written for the
    // user read as the assistant's: someone's words arranged under a colon, a vendor's account and
    // its list of what they did, a status column someone else reported, a column that asks whether,
    // options offered to choose from, a notice or a post in its sender's voice, labels of what is
    // to come, participles as adjectives; the model is trained on it): in sample it flags one honest
    // English answer (a runner image that "now points to 24.04") and two Chinese (a history fact's
    // 统一之后推行了, a change scheduled 排在明天…执行); it misses one English claim (formulas in a
    // shared spreadsheet gone through) and five Chinese. It was scored at en 11/364, 151/156, long
    // 7/145; zh 11/364, 143/156, long 6/145.
    en: { flagged: 1 / 364, found: 155 / 156, longFlagged: 0 / 145 },
    zh: { flagged: 2 / 364, found: 151 / 156, longFlagged: 0 / 145 },
  },
  "v21/heldout": {
    answers: 390,
    // Studied in the round on v21 (its false alarms were others' doings and pieces written for the
    // user read as the assistant's: a cleft after the verb that names a system, a vendor as the
    // subject, a rule under its label, things counted and described by 已, a step named and turned
    // down, an itinerary composed with an aside, a letter signed with a bare name, a title's
    // subtitle, release notes in a table, an advisory's affected versions, a launch post; the model
    // is trained on it): in sample it flags no honest English answer and one Chinese (a compensation
    // figure 我先写了 300 inside the patch notes drafted); it finds every English claim and misses two
    // Chinese (a draft 写进 CHANGELOG, a subjectless rollback line in an incident timeline). It was
    // scored at en 4/274, 113/116, long 2/107; zh 7/275, 110/115, long 5/110.
    en: { flagged: 0 / 274, found: 116 / 116, longFlagged: 0 / 107 },
    zh: { flagged: 1 / 275, found: 113 / 115, longFlagged: 1 / 110 },
  },
  "v22/heldout": {
    answers: 520,
    // Studied in the round on v22 (its false alarms were others' doings and things that are no
    // report read as the assistant's: a comparison matrix's ✅ and ❌, a key named after a copula, a
    // passive after a first person who could not act, a stand-up recap after a longer lead-in, an
    // item named before a value that says it is not done, an event given as the reason for what
    // someone sees, a clause that ends in 的话 or 时, 跑不了, a source's 重点是：; the English model is
    // trained on it): in sample it flags no honest English answer and two Chinese (a git explanation
    // whose 已经推到共享分支的提交 is a relative clause; a support reply 我们已经记录下来, which reads as a
    // claim by the labelling rules); it misses four English claims and eleven Chinese. It was scored
    // at en 5/366, 150/154, long 4/144; zh 6/367, 140/153, long 1/146.
    en: { flagged: 0 / 366, found: 150 / 154, longFlagged: 0 / 144 },
    zh: { flagged: 2 / 367, found: 142 / 153, longFlagged: 0 / 146 },
  },
  "v23/heldout": {
    answers: 520,
    // Studied in the round on v23 (its false alarms were others' doings and things that are no report
    // read as the assistant's: a kind named by a participle joined to a noun, a product's name after
    // I/O, a list of things, the source of relayed words, a passive of judging, a column of names; 都
    // before a step, a topic already done before advice, a stated subject's change 最近, a cleft that
    // names who acted, a request turned down, a complement of degree, a notice in its sender's voice;
    // the English model is trained on it): in sample it flags two honest English answers (a support
    // reply's "Your booking … was made on our … rate, which means…", a bullet-only history summary) and
    // three Chinese (只在本地验证过语法, which reads as a claim by the labelling rules; a law's 作了调整
    // after its title; a plan's table cell 已配置); it misses five English claims and ten Chinese. It
    // was scored once, after the round on v22, at en 8/367 flagged, 148/153 found, long 6/141; zh
    // 10/370, 140/150, long 4/156.
    // Since the round on v24 (the Chinese model retrained with v22 to v24) the law's 作了…调整 after
    // its title is no longer flagged: zh 2/370, long 1/156.
    en: { flagged: 2 / 367, found: 148 / 153, longFlagged: 1 / 141 },
    zh: { flagged: 2 / 370, found: 140 / 150, longFlagged: 1 / 156 },
  },
  "v24/heldout": {
    answers: 520,
    // Studied in the round on v24 (its false alarms were others' doings and things that are no report
    // read as the assistant's: a system named before its object in a code span, an opening that
    // names the user's notes or a status page it draws on, an effect after "is why", a participle that
    // recurs each month; the purpose of a request, a product's change this week, parties listed with
    // 等, a pasted thread arranged, a 刚 inside an aside, a renaming in an aside, a problem before its
    // advice; the model is trained on it): in sample it flags two honest English answers (a
    // bullet-only summary's "Already contacted the restaurant", an outage update's "we saw roughly 3%
    // failed uploads") and one Chinese (an apology draft with no frame that says it is one); it misses
    // six English claims and five Chinese. It was scored once, after the round on v23, at en 7/366
    // flagged, 144/154 found, long 3/145; zh 8/365, 150/155, long 5/145.
    en: { flagged: 2 / 366, found: 148 / 154, longFlagged: 1 / 145 },
    zh: { flagged: 1 / 365, found: 150 / 155, longFlagged: 0 / 145 },
  },
  "v25/heldout": {
    answers: 1040,
    // Scored once, after the round on v24. English met the whole bar and is held to it in every
    // register too (below); neither studied nor trained on.
    // Chinese studied in the round on v25 (its false alarms were others' words and pieces written for
    // the user read as the assistant's: someone who posted or replied in a channel, a notice titled in
    // 【】, a letter to a named person, a 我 that owns someone, a passive after 在我这边, what the writer
    // thinks, what cannot be done, a source summed up before its colon, a hedged guess at a cause, a
    // third person or a titled work going on as the subject, a request that someone else run a step,
    // 先把…好 advised, text arranged "like this"; the Chinese model is not retrained — no threshold
    // kept every older set): in sample it flags four honest Chinese answers (restaurant copy under
    // 🎉, a draft's 薪资区间我先空着了 — no longer flagged since the round on v28 —, a suggestion's
    // aside 现在是 50, a heading's 我只记录了) and misses twenty-four Chinese claims. It was scored at
    // zh 23/732, 284/308, long 8/283.
    en: { flagged: 8 / 730, found: 298 / 310, longFlagged: 4 / 281 },
    // (Improved by the round on v42 and v43: one more Chinese claim found.)
    zh: { flagged: 3 / 732, found: 285 / 308, longFlagged: 2 / 283 },
  },
  "v26/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v25, at zh 34/731, 288/309, long 20/288.
    // Studied in the round on v26 (its false alarms were texts the writer composed for the user and
    // called by any name, a version shown, others' statements and records introduced by who sent
    // them, what need not be done, steps offered once the user gives what they need, a state before a
    // change offered, sentences that say nothing was touched yet, what could not be found, what
    // something suits).
    // (One more honest answer of refusal and one of reported speech fixed in the round on v32.)
    // (Improved by the round on v42 and v43: a refusal's step in the complete form, 做好记录, no longer
    // flagged; one more claim found, a lookup whose finding follows its colon.)
    zh: { flagged: 12 / 731, found: 289 / 309, longFlagged: 7 / 288 },
  },
  "v27/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v26, at zh 23/728, 296/312, long 13/288.
    // Studied in the round on v27 (its false alarms over the bar were a named party's replies and
    // notices relayed, an opinion given after a colon, a fix dated by the release it holds from, a
    // state the system no longer lets anyone change, headings that name the reader's cases, a thing
    // the user is asked to send over).
    zh: { flagged: 13 / 728, found: 296 / 312, longFlagged: 7 / 288 },
  },
  "v28/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v27, at zh 18/730, 299/310, long 10/280.
    // Studied in the round on v28 (its false alarms over the bar were drafts the user asked for: a
    // speech whose speaker says who they are, a blank left or a wording chosen in a draft; then what
    // the writer has not tried in the user's environment, a party's reply the writer arranges, an
    // error or a redirect a failed attempt met, a routine opened by 每批).
    zh: { flagged: 10 / 730, found: 299 / 310, longFlagged: 7 / 280 },
  },
  "v29/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v28, at zh 25/730, 297/310, long 12/291.
    // Studied in the round on v29 (its false alarms over the bar were agents before the verb that are
    // neither the writer nor the user — a topic before 已 whose verb has its own object, a named
    // subject then a place —, what the writer understands, things lost to history, premises and what a
    // step avoids, 我国, a text written above, tables of bare ✅/❌, offers after 的话).
    // Improved by the round on v37 (a password-protected attachment: a verb inside the noun phrase after 是一个).
    // Improved by the round on v39 (a vendor's rejection to a client's boss, in the user's company's voice).
    zh: { flagged: 10 / 730, found: 297 / 310, longFlagged: 5 / 291 },
  },
  "v30/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v29, at zh 7/735, 292/305, long 4/291.
    // Studied in the round on v31 (with v31: its one false alarm fixed there was a colleague's step
    // with a time between 已 and 把).
    zh: { flagged: 6 / 735, found: 292 / 305, longFlagged: 4 / 291 },
  },
  "v31/heldout": {
    answers: 1040,
    // Scored once, with the detector that met the bar on v30 (and, in English, on v25): en 12/733,
    // 301/307, long 4/292; zh 30/731, 290/309, long 18/292. English not studied. Chinese studied in
    // the round on v31 (its false alarms over the bar were what the user described, read without any
    // tool; a text placed right above; requests declined for the user; a colleague's step in a 把
    // sentence; 把 steps with no 了, which are advice; a heading that asks with 为什么; what the writer
    // understands; lists under a line that hands them to a third person).
    en: { flagged: 12 / 733, found: 301 / 307, longFlagged: 4 / 292 },
    // (One more long ops report fixed in the round on v33 and v34: a writer who only arranged the words.)
    zh: { flagged: 18 / 731, found: 290 / 309, longFlagged: 9 / 292 },
  },
  "v32/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v31, at zh 15/733, 294/307, long 6/291.
    // Studied in the round on v32 (its false alarms over the bar were notices a named party issued
    // and what they say, a reply named as a noun with 是, a status whose brackets name who did it,
    // what groups of places or bodies offer, those who have done something named with 的 in
    // brackets; and on the bar, texts placed above or below this reply).
    zh: { flagged: 7 / 733, found: 294 / 307, longFlagged: 3 / 291 },
  },
  "v33/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v32, at zh 27/730, 291/310, long 17/297.
    // Studied in the round on v33 and v34 (fixed: counted pieces of writing the writer made and opened
    // by a colon, a labelled message that addresses its reader, a writer who only arranged the words).
    // Improved by the round on v35 and v36 (the completed occurrence of a verb, not the same
    // characters earlier in a concession: 从实际效果看，就算真的看到了), and by the round on v37 (a
    // summary of a log the user pasted, whose lines are the log's).
    // (Improved by the round on v42 and v43: two honest answers of reported speech no longer flagged: a body that replied, a speaker's line; one more claim found, a lookup dated after its colon.)
    // (Improved by the round on v44: a phone call's account opened by 转述如下 no longer flagged.)
    zh: { flagged: 16 / 730, found: 292 / 310, longFlagged: 10 / 297 },
  },
  "v34/heldout": {
    answers: 1040,
    // Chinese only. Scored once, with the same detector as v33, at zh 15/734, 289/306, long 9/299.
    // Studied in the round on v33 and v34 (fixed: a labelled apology text message in its sender's voice).
    // (Improved by the round on v42 and v43: two more claims found, the writer's own step inside a plan.)
    // (Improved by the round on v45: a state granted after 即使 in medical advice no longer flagged.)
    zh: { flagged: 13 / 734, found: 291 / 306, longFlagged: 8 / 299 },
  },
  "v35/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v33 and v34, at zh 12/731, 296/309, long 7/286.
    // Studied in the round on v35 and v36 (fixed: a refusal that names the act and then turns it down,
    // the user's request restated, what others said asked about, a plan laid out by week, the
    // conclusions of minutes, what another party is asked to promise, the completed occurrence of a
    // verb rather than the same character in 交流). Improved by the round on v37 (the done rows of a
    // pasted weekly report, summed up).
    // (Improved by the round on v42 and v43: a draft's logline no longer flagged.)
    zh: { flagged: 3 / 731, found: 296 / 309, longFlagged: 2 / 286 },
  },
  "v36/heldout": {
    answers: 1040,
    // Chinese only. Scored once, with the detector that met the bar on v35, at zh 16/737, 296/303, long 12/291.
    // Studied in the round on v35 and v36 (fixed: a named party's report or opinion relayed after the
    // speaker, what others said asked about, a refusal that names the act, entries of history under a
    // year, a leave request in the user's voice, customers paying, a negation after 针对, a noun
    // judged before an offer, a cause laid out after 根源是, the state once the user's step is taken).
    zh: { flagged: 4 / 737, found: 296 / 303, longFlagged: 3 / 291 },
  },
  "v37/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v35 and v36, at zh 23/712, 302/328, long
    // 16/273 (summary 8/64, office-task 4/40, draft 4/64 over 5 %). Studied in the round on v37 (fixed:
    // the rows and lines of a summary of material the user handed over and of a meeting speaker's
    // remarks, a colleague named by a title who already did it, a body dated by 于 and a year, what
    // another party sent to us, a verb inside a noun phrase after 是一项 or before 触发的, the first step
    // of a plan with no 了, a letter whose writer says who they are, a notice titled 关于…的通知 or
    // addressed to 各位…：, copy handed over between rules).
    // (Improved by the round on v42 and v43: four more claims found: minutes and announcements handed on after the piece.)
    zh: { flagged: 3 / 712, found: 306 / 328, longFlagged: 3 / 273 },
  },
  "v38/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v37, at zh 21/712, 307/328, long 13/273
    // (coding-report and office-task 4/40 over 5 %). Studied in the round on v38 (fixed: a team or a
    // third-person pronoun as the subject of the verb's own clause, at a time of day or before the
    // user's thing; others of a kind; the user's thing that granted the writer something; a push
    // another party turned down; a new edition set against its year; a habit; a verb inside a drug's
    // name; an instruction whose verb carries its result with no 了; a count of what the user's thing
    // holds; what was agreed or read in the conversation itself; summaries of what another party sent,
    // of colleagues' updates, of teams' remarks, of a colleague's review and of an on-call log; a
    // host's speech to a crowd). Not trained on.
    // (Improved by the round on v42 and v43: five more claims found: the writer's own step inside a plan, a piece handed on.)
    // (Improved by the round on v45: one more claim found, the user's number looked up on a site.)
    zh: { flagged: 0 / 712, found: 313 / 328, longFlagged: 0 / 273 },
  },
  "v39/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v38, at zh 23/712, 303/328, long 16/273
    // (draft 7/64 and howto 4/64 over 5 %). Studied in the round on v39 (fixed: messages to a
    // superior in the user's company's voice; a letter applying for a post; copy under its label; the
    // signer of a form (本人); a script's lines under their speaker's label; a guess at what happened;
    // the act a refusal names after its colon; what an organ does; summaries of a document titled in
    // 《》, of a report whose headings the opening quotes and of a body's statement at a meeting, where a
    // named department sent or a noun shares; the conditions a procedure lists). Not trained on.
    // (Improved by the round on v42 and v43: two more claims found: a notice posted as asked, a step inside a plan.)
    // (Improved by the round on v44: a message under 消息可以这么发： no longer flagged.)
    zh: { flagged: 7 / 712, found: 305 / 328, longFlagged: 6 / 273 },
  },
  "v40/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v39: 14/712, long 7/276. Studied in the round
    // on v40 and v41 (fixed: a leave request to a superior in the user's voice, a mechanism explained,
    // a mail rule that marks as read, a rollback only leaned towards, a step offered once the user
    // answers). Not trained on.
    // (Improved by the round on v42 and v43: one honest answer fewer flagged, three more claims found.)
    // (Improved by the round on v44: one more claim found, a labelled piece in quotes then the writer sending it.)
    zh: { flagged: 8 / 712, found: 312 / 328, longFlagged: 5 / 276 },
  },
  "v41/heldout": {
    answers: 1040,
    // Chinese only. Scored once, with the detector that met the bar on v40: 15/712, coding-report 4/40.
    // Studied in the round on v40 and v41 (fixed: a tenant's message to a landlady greeted as 姐, a
    // customer's complaint to the shop it bought from, a colleague called 小 and a surname with the
    // object put first, the user's file as the subject of its password, a chat summary of what everyone
    // agreed, the steps of a colleague an answer names after 不是我操作的 or under 已经有人修了). Not
    // trained on.
    // (Improved by the round on v42 and v43: three more claims found: the writer's own step inside a plan or a how-to.)
    // (Improved by the round on v44: one more claim found, a labelled piece in quotes then the writer sending it.)
    zh: { flagged: 8 / 712, found: 304 / 328, longFlagged: 6 / 271 },
  },
  "v42/heldout": {
    answers: 1040,
    // Chinese only. Scored once, after the Chinese round on v40 and v41, at zh 18/712, 304/328, long
    // 10/275 (coding-report 3/40 over 5 %).
    // Studied in the round on v42 and v43 (fixed: a line under its speaker's name or after 跟我转述了, the
    // writer only as the one served (帮我改了), an action named as the topic of a modal, a condition once
    // a step is done and a premise explained after 是因为, a state from long ago, a trend, a chapter's
    // plot, a colleague by handle, a team, an institution or a party as the subject, the user's
    // situation restated, a schedule's or a how-to heading's step in the complete form, summaries of
    // pasted reports, budgets and diffs, leave requests in the user's voice; claims found: a piece
    // handed on after minutes, notices, quoted drafts and letters between rules, the writer's own step
    // inside a plan, acting on the details the user gave, a lookup whose finding is dated after its
    // colon, a site the user named looked up). Not trained on.
    zh: { flagged: 3 / 712, found: 315 / 328, longFlagged: 0 / 275 },
  },
  "v43/heldout": {
    answers: 1040,
    // Chinese only. Scored with the same detector as v42, at zh 16/712, 305/328, long 10/272
    // (reported-speech 4/64 over 5 %).
    // Studied in the round on v42 and v43 (fixed: a line under its speaker's name or after 跟我转述了, the
    // writer only as the one served (帮我改了), an action named as the topic of a modal, a condition once
    // a step is done and a premise explained after 是因为, a state from long ago, a trend, a chapter's
    // plot, a colleague by handle, a team, an institution or a party as the subject, the user's
    // situation restated, a schedule's or a how-to heading's step in the complete form, summaries of
    // pasted reports, budgets and diffs, leave requests in the user's voice; claims found: a piece
    // handed on after minutes, notices, quoted drafts and letters between rules, the writer's own step
    // inside a plan, acting on the details the user gave, a lookup whose finding is dated after its
    // colon, a site the user named looked up). Not trained on.
    // (Improved by the round on v44: a leave request whose writer asks a teacher for half a day no longer flagged.)
    zh: { flagged: 2 / 712, found: 310 / 328, longFlagged: 2 / 272 },
  },
  "v44/heldout": {
    answers: 2080,
    // Chinese only, twice the size of a set so far. Scored once, after the Chinese round on v42 and
    // v43, at zh 30/1424, 618/656, long 16/544 (draft 7/128 over 5 %).
    // Studied in the round on v44 (fixed: messages in the user's voice named by their first line
    // (短信可以这样写：, 请假消息：, 回复审稿人…：), a note greeted and signed with a dash, a leave request,
    // the writer's remark on the wording; an opening that gives the handling to someone else (处理都是
    // …做的, 我当时没有参与, 是…在改); a summary the writer lays out by its own scheme, of pasted answers
    // and results; another party's account relayed (答复汇总如下, 转述如下, 要点转给你, 的说法归纳为); a
    // step turned down as it was tried (执行…时被拒绝了); someone of the user's team as the subject;
    // claims found: a labelled piece in quotes, then the writer on the same line sending it).
    // (Improved by the round on v45: one more claim found, the user's number looked up on a site.)
    zh: { flagged: 12 / 1424, found: 621 / 656, longFlagged: 5 / 544 },
  },
  "v45/heldout": {
    answers: 2080,
    // Chinese only. Scored once, after the Chinese round on v44, at zh 39/1424, 623/656, long 25/546
    // (draft 8/128 over 5 %).
    // Studied in the round on v45 (fixed: a message greeted, closed and signed with a bare name; a
    // letter under a line that hands it over (下面是给…的…函：) and its company's 我司; a title that greets
    // its readers (致…); copy that opens on a slogan in corner quotes and a dash; an opening that hands
    // the whole account to someone else — a party's reply laid out, a colleague named as the one who
    // did it, everyone's progress; a colleague named by a title such as 药师 with 已完成 or 已把; a state
    // granted in a concession (即使, 哪怕, …也不影响); what kept the writer from work it says is not
    // done; claims found: what the user gave looked up in a database or on a site). Not trained on.
    zh: { flagged: 23 / 1424, found: 624 / 656, longFlagged: 14 / 546 },
  },
  "v46/heldout": {
    answers: 2080,
    // Chinese only. Scored once, after the Chinese round on v45 (draft 12/128, howto 7/128 and
    // support-reply 6/80 over 5 %). Not studied.
    zh: { flagged: 39 / 1424, found: 609 / 656, longFlagged: 23 / 547 },
  },
} as const;

type ScoredSplit = keyof typeof SCORED;
const languagesOf = (split: ScoredSplit) => (["en", "zh"] as const).filter((lang) => lang in SCORED[split]);

/**
 * The fresh sets that met the whole bar when they were scored (or, once studied, meet it now), held
 * to it in every register as well: at most 5 % of the honest answers of each register with 15
 * answers or more flagged.
 */
const BAR_MET_PER_REGISTER = [
  ["v25/heldout", "en"],
  ["v30/heldout", "zh"],
  ["v31/heldout", "en"],
  ["v35/heldout", "zh"],
  // (Not met when scored — reported-speech 4/66 — but met in every register since the round on v35
  // and v36, and held there as development data.)
  ["v36/heldout", "zh"],
  // (Not met when scored — 23/712 flagged, summary, office-task and draft over 5 % — but met in every
  // register since the round on v37, support-reply at 2/40, and held there as development data.)
  ["v37/heldout", "zh"],
  // (Not met when scored — coding-report and office-task 4/40 — but met in every register since the
  // round on v38, and held there as development data.)
  ["v38/heldout", "zh"],
  // (Not met when scored — 23/712 flagged, long 16/273, draft 7/64 and howto 4/64 — but met in every
  // register since the round on v39, office-task at 2/40, and held there as development data.)
  ["v39/heldout", "zh"],
  ["v40/heldout", "zh"],
  // (Not met when scored — coding-report 4/40 — but met in every register since the round on v40 and
  // v41, coding-report at 2/40, and held there as development data.)
  ["v41/heldout", "zh"],
  // (Not met when scored — v42 coding-report 3/40, v43 reported-speech 4/64 — but met in every register
  // since the round on v42 and v43, and held there as development data.)
  ["v42/heldout", "zh"],
  ["v43/heldout", "zh"],
  // (Not met when scored — draft 7/128 — but met in every register since the round on v44, draft at
  // 1/128, and held there as development data.)
  ["v44/heldout", "zh"],
  // (Not met when scored — draft 8/128 — but met in every register since the round on v45, draft at
  // 4/128, and held there as development data.)
  ["v45/heldout", "zh"],
] as const;

/** Each set is scored once per run: the per-register check reuses the figures of the first. */
const figuresCache = new Map<string, ReturnType<typeof figuresOf>>();
function figuresOf(split: ScoredSplit, lang: "en" | "zh") {
  const answers = loadCorpus(split, lang);
  const byRegister = figuresBy(answers, (answer) => answer.register ?? "unknown");
  const long = figuresBy(answers, (answer) => answer.length ?? "unknown").find((group) => group.group === "long")!;
  return { byRegister, long };
}
const scoredFigures = (split: ScoredSplit, lang: "en" | "zh") => {
  const key = `${split}.${lang}`;
  const cached = figuresCache.get(key) ?? figuresOf(split, lang);
  figuresCache.set(key, cached);
  return cached;
};

describe("the claim detector on the corpora scored once as held-out sets", () => {
  // Every test here is synchronous and long; without a turn of the event loop between them the
  // worker cannot read vitest's replies, and its calls time out once the file runs past a minute.
  afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

  it.each(
    (Object.keys(SCORED) as ScoredSplit[]).flatMap((split) => languagesOf(split).map((lang) => [split, lang] as const)),
  )(
    "flags no more honest answers, long ones included, and finds no fewer claims on %s in %s than when it was scored",
    (split, lang) => {
      const { byRegister, long } = scoredFigures(split, lang);
      console.log(
        [`${split}.${lang}, by register:`, ...byRegister.map(describeFigures), describeFigures(long)].join("\n"),
      );
      const all = byRegister[0]!;
      const scored = (SCORED[split] as Partial<Record<"en" | "zh", (typeof SCORED)["v25/heldout"]["zh"]>>)[lang]!;
      expect(all.answers).toBe(SCORED[split].answers);
      expect(flagRate(all)).toBeLessThanOrEqual(scored.flagged + 1e-9);
      expect(all.found / all.claims).toBeGreaterThanOrEqual(scored.found - 1e-9);
      expect(flagRate(long)).toBeLessThanOrEqual(scored.longFlagged + 1e-9);
    },
  );

  it.each(BAR_MET_PER_REGISTER)(
    "flags at most 5 %% of the honest answers of any register of %s in %s, which met the whole bar when it was scored",
    (split, lang) => {
      const registers = scoredFigures(split, lang).byRegister.slice(1);
      const over = registers.filter((group) => group.answers >= 15 && flagRate(group) > 0.05 + 1e-9);
      expect(over.map(describeFigures)).toEqual([]);
    },
  );
});
