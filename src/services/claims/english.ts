import type { ClaimKind } from "./kinds.js";
import {
  BLOCKERS,
  COPULAS,
  DEFINITE_SUBJECT,
  DONE_STATES,
  ENGLISH_VERBS,
  FILLERS,
  FINITE_LATER,
  IRREGULAR_PAST,
  MODALS,
  NOT_ACTIONS,
  OBJECT_KINDS,
  OPENERS,
  OUTSIDE_TASK,
  PAST_TIME,
  PHRASAL_KINDS,
  STATIVE_PARTICIPLES,
  SUBORDINATORS,
} from "./lexicon.en.js";

/**
 * English: a sentence claims an action when one of its clauses says, in the first person (or with
 * the subject left out, or in a completed passive or state about this task's object), that an
 * action verb is done — "I've gone ahead and pushed the fix", "Pushed to dev", "The invoice was
 * sent", "The email is on its way". Negation, modals and conditions count only in their own clause.
 */

export interface EnglishMatch {
  readonly kind: ClaimKind;
  readonly verb: string;
}

interface VerbForm {
  readonly base: string;
  readonly kind: ClaimKind;
}

/** Regular past forms of a base: add(ed), save(d), cop(ied), stop(ped), ship(ped). */
function regularPast(base: string): string[] {
  if (base.endsWith("e")) return [`${base}d`];
  if (/[^aeiou]y$/.test(base)) return [`${base.slice(0, -1)}ied`];
  const forms = [`${base}ed`];
  if (/[^aeiou][aeiou][bdgklmnprtz]$/.test(base)) forms.push(`${base}${base.at(-1)}ed`);
  return forms;
}

/** Every past form of the lexicon's verbs → its base and kind (the first kind listed wins). */
const PAST_FORMS: ReadonlyMap<string, VerbForm> = (() => {
  const forms = new Map<string, VerbForm>();
  for (const kind of ["observe", "deliver", "mutate"] as const) {
    for (const base of ENGLISH_VERBS[kind]) {
      for (const form of [...(IRREGULAR_PAST[base] ?? []), ...regularPast(base)]) {
        if (!forms.has(form)) forms.set(form, { base, kind });
      }
    }
  }
  return forms;
})();

// (A word joined to a number by a hyphen — "Buchholz Cut-1", "round-2" — is a label, one token.)
const WORD = /v?\d[\w.]*\w|[a-z]+(?:-[a-z]+)*-\d[\w.]*|[a-z]+(?:[-'][a-z]+)*|#\w+|\d|[,;:—–()]|(?<=\s)-(?=\s)/g;

function tokens(sentence: string): string[] {
  // A parenthesis adds detail ("(INV-4471 and INV-4472)"); it never carries the predicate.
  // A word with a capital inside it (PubMed, LinkedIn, GitHub) is a name, never a past verb.
  // A capitalised -ed word no verb of the lexicon forms, before a regnal number or a possessive
  // (Mehmed II's cannon, Ahmed's report), is a person's name.
  const unbracketed = sentence
    .replace(/\([^()]*\)/g, " ")
    .replace(/\b[A-Za-z]*[a-z][A-Z][A-Za-z]*\b/g, "name")
    .replace(/\b[A-Z][a-z]+ed(?=\s+[IVX]+\b|['’]s\b)/g, (word) => (PAST_FORMS.has(word.toLowerCase()) ? word : "name"))
    // A participle beside its own negation (refined and unrefined oils, salted or unsalted butter)
    // sorts things into kinds, and a participle and a noun before "=" name a formula's term
    // (weighted score = sum of …): adjectives both, no action.
    .replace(/\b([A-Za-z]+ed)(?=\s+(?:and|or)\s+(?:un|non-?)([A-Za-z]+ed)\b)/g, (word, _w, negated: string) =>
      word.toLowerCase() === negated.toLowerCase() ? "kind" : word,
    )
    .replace(/\b[A-Za-z]+ed(?=\s+[a-z]+(?:\s+[a-z]+)?\s*=(?!=))/g, "term");
  return (unbracketed.toLowerCase().replace(/[’‘]/g, "'").match(WORD) ?? []).flatMap((token) => {
    // I've → i + 've; it's stays one word (a subject); don't stays one word (a blocker).
    const contraction = /^(i|we|you|they)('ve|'ll|'d|'m|'re)$/.exec(token);
    return contraction ? [contraction[1]!, contraction[2]!] : [token];
  });
}

/** A completed form of an action verb: known, or a regular -ed form not in NOT_ACTIONS. */
function pastVerb(word: string | undefined): VerbForm | undefined {
  if (!word || NOT_ACTIONS.has(word)) return undefined;
  const known = PAST_FORMS.get(word);
  if (known) return known;
  // (re-sent, re-ran, re-enabled: the verb done again is the verb.)
  const again = /^re-([a-z]{3,})$/.exec(word);
  if (again) return pastVerb(again[1]);
  // "unused", "unchanged": un- participles are adjectives. An unknown verb claims the weakest
  // kind: any successful receipt can back it.
  if (/^un[a-z]+ed$/.test(word)) return undefined;
  // (app-based, AI-driven, family-owned: a noun and a participle of relation make an adjective.)
  if (
    // (club-rated, cloud-hosted, tournament-sponsored: so do participles of rating, hosting and backing.)
    /^[a-z]+-(?:based|related|driven|oriented|powered|shaped|sized|owned|funded|backed|led|focused|cent(?:er|re)d|rated|hosted|managed|sponsored|branded|licensed|certified|themed)$/.test(
      word,
    )
  )
    return undefined;
  return /^[a-z][a-z-]{2,}ed$/.test(word) && !/(?:eed|ied)$/.test(word) ? { base: word, kind: "observe" } : undefined;
}

function kindOf(form: VerbForm, rest: ReadonlyArray<string>): ClaimKind {
  const particle = rest[0];
  const phrasal = particle ? PHRASAL_KINDS[`${form.base} ${particle}`] : undefined;
  if (phrasal) return phrasal;
  const object = rest.slice(0, 6).join(" ");
  for (const [verb, pattern, kind] of OBJECT_KINDS) if (verb === form.base && pattern.test(object)) return kind;
  return form.kind;
}

/** Clauses: split at punctuation and at conjunctions that start a new predicate. */
function clauses(words: ReadonlyArray<string>): string[][] {
  const result: string[][] = [[]];
  for (const word of words) {
    if (
      [",", ";", ":", "—", "–", "-", "(", ")", "but", "and", "then", "so", "which", "while", "whereas"].includes(word)
    ) {
      if (result.at(-1)!.length > 0) result.push([]);
      continue;
    }
    result.at(-1)!.push(word);
  }
  return result.filter((clause) => clause.length > 0);
}

const FIRST_PERSON = new Set(["i", "we"]);
/** What may follow a subjectless verb for it to be a statement ("Pushed the fix"), not an adjective ("Deployed apps sleep"). */
const OBJECT_START =
  /^(?:the|your|a|an|it|them|this|that|these|those|all|both|each|every|my|our|his|her|their|its|to|in|into|on|onto|up|out|back|over|off|down|through|at|from|for|with|coderef|quoteref|#\w+|\d[\w.]*|v\d[\w.]*|and|everything|anything|everyone|him|me|us|[a-z-]+'s)$/;

/** Verbs of writing, and the conversation as where they happened: the reply itself, not an action of the task. */
const REPLY_WRITING = /^(?:wrote|written|drafted|composed|typed|outlined|sketched|suggested|proposed)$/;
const IN_CONVERSATION = /\b(?:in|during|within) (?:this|our|the) (?:conversation|chat|thread|reply|message|session)\b/;

const NO_WORDS: ReadonlyArray<string> = [];

const COMPLETING = new Set(["now", "already", "all", "successfully", "both"]);
const HEADLINE_NEXT = /^(?:to|in|into|on|onto|for|at|via|with|from|as|successfully|coderef|#\w+|v?\d[\w.]*)$/;

const MAX_CLAUSE_WORDS = 40;
/** Actions weighed per sentence: enough for a sentence that mixes others' actions with its own. */
export const MAX_MATCHES = 4;

/** Base forms of the lexicon's verbs, for checked boxes written in the imperative. */
const BASE_FORMS: ReadonlyMap<string, VerbForm> = new Map(
  (["observe", "deliver", "mutate"] as const).flatMap((kind) =>
    ENGLISH_VERBS[kind].map((base) => [base, { base, kind }] as const),
  ),
);

/** "what I've done (instead) is <verb>", "what we did was <verb>", as the clause's words. */
const PSEUDO_CLEFT =
  /^what (?:i|we) (?:'ve |have |had )?(?:done|did)(?: (?:instead|so far|already|here|now|for now))? (?:is|was) (?:to )?([a-z]+)(?= |$)/;

function clauseClaim(
  clause: ReadonlyArray<string>,
  marked: boolean,
  otherSubject = false,
  checked = false,
  later: () => ReadonlyArray<string> = () => NO_WORDS,
): EnglishMatch | undefined {
  const first = clause[0]!;
  // ("What I've done instead is flag the three entries": a pseudo-cleft names the first person's
  // action after is or was, in its base form.)
  const cleft = first === "what" ? PSEUDO_CLEFT.exec(clause.slice(0, 9).join(" ")) : null;
  const cleftVerb = cleft ? BASE_FORMS.get(cleft[1]!) : undefined;
  if (cleftVerb) return { kind: kindOf(cleftVerb, clause.slice(cleft![0].split(" ").length)), verb: cleft![1]! };
  if (SUBORDINATORS.has(first) || (first === "as" && clause[1] === "soon")) return undefined;
  // "I read your question as…", "I see", "I understand" are not actions.
  const subjectAt = clause.findIndex((word) => FIRST_PERSON.has(word));
  if (subjectAt >= 0 && subjectAt <= 3) {
    for (let at = subjectAt + 1; at < clause.length; at++) {
      const word = clause[at]!;
      if (BLOCKERS.has(word) || word.endsWith("n't")) return undefined;
      if (FILLERS.has(word) || word === "'ve") continue;
      // "went ahead and pushed": a filler; "went through the transcripts": the action itself.
      if ((word === "went" || word === "gone") && clause[at + 1] === "ahead") continue;
      // "…but I did reset staging": an emphatic did before the base form states the action.
      const emphatic = word === "did" ? BASE_FORMS.get(clause[at + 1] ?? "") : undefined;
      if (emphatic) return { kind: kindOf(emphatic, clause.slice(at + 2)), verb: clause[at + 1]! };
      const verb = pastVerb(word);
      if (!verb) return undefined;
      const rest = clause.slice(at + 1);
      if (verb.base === "read" && rest.slice(0, 5).includes("as")) return undefined;
      // "I've listed the options below" is about this reply, not an action. (Not before a number:
      // "a rule that turns any score below 60 red" compares.)
      if (rest.some((w, i) => (w === "below" || w === "above") && !/^[$€£¥]?\d/.test(rest[i + 1] ?? "")))
        return undefined;
      // "In this conversation I only wrote the text for it": writing done in the conversation is the reply itself.
      if (REPLY_WRITING.test(word) && IN_CONVERSATION.test(clause.join(" "))) return undefined;
      // "…so I stopped there": halting, not an action on anything.
      if (rest[0] === "there" || rest[0] === "here") return undefined;
      return { kind: kindOf(verb, rest), verb: word };
    }
    return undefined;
  }
  // A subjectless predicate: a status line, or the next predicate of "I checked…, patched…" —
  // unless the previous predicate of the sentence had someone else as its subject.
  let at = 0;
  while (at < clause.length && OPENERS.has(clause[at]!)) at++;
  const word = clause[at];
  // A checked box states its task as done even in the imperative ("- [x] Revoke the leaked key").
  const base = checked && at === 0 ? BASE_FORMS.get(word ?? "") : undefined;
  if (base) return { kind: kindOf(base, clause.slice(at + 1)), verb: word! };
  const verb = otherSubject ? undefined : pastVerb(word);
  // "Read the file…", "Set the flag…" are imperatives: a verb whose past is its base states nothing without a subject.
  const imperative = verb !== undefined && (IRREGULAR_PAST[verb.base] ?? []).includes(verb.base) && !marked;
  if (verb && !imperative) {
    const next = clause[at + 1];
    // "Filed issue #77" states; "Deployed apps sleep" describes (a bare plural reads as an adjective's noun).
    const singularNoun =
      next !== undefined &&
      at === 0 &&
      !next.endsWith("s") &&
      ![...clause.slice(at + 2), ...later()].some((w) => FINITE_LATER.has(w) || w.endsWith("n't"));
    if (next === undefined || OBJECT_START.test(next) || marked || singularNoun) {
      return { kind: kindOf(verb, clause.slice(at + 1)), verb: word! };
    }
  }
  return passiveOrState(clause);
}

const RELATIVE: ReadonlySet<string> = new Set(["that", "who", "which"]);
const NOUN_BLOCKERS: ReadonlySet<string> = new Set(["plan", "need", "aim", "hope"]);
const DETERMINERS: ReadonlySet<string> = new Set(["the", "your", "this", "that", "his", "her", "their", "our", "my"]);

/** "The invoice was sent to…", "Changes have been committed", "Your file now contains…". */
function passiveOrState(clause: ReadonlyArray<string>): EnglishMatch | undefined {
  const text = clause.join(" ");
  const definite = DEFINITE_SUBJECT.test(clause[0]!);
  // ("Your plan has been switched": plan, need or aim after a determiner is a noun, the subject — no intention.)
  const blocked = (words: ReadonlyArray<string>) =>
    words.some(
      (w, index) =>
        (BLOCKERS.has(w) && !(NOUN_BLOCKERS.has(w) && DETERMINERS.has(words[index - 1] ?? ""))) ||
        w.endsWith("n't") ||
        SUBORDINATORS.has(w) ||
        FIRST_PERSON.has(w),
    );
  for (let at = 1; at < clause.length; at++) {
    const word = clause[at]!;
    const before = clause.slice(0, at);
    let participleAt = -1;
    // A perfect passive is about this task whatever its subject ("Changes have been committed");
    // a simple one only with a definite subject ("The invoice was sent", not "Emails are sent").
    if ((word === "has" || word === "have" || word === "'s") && clause[at + 1] === "been") participleAt = at + 2;
    // ("Cells that were already converted can't be turned back": a passive right after a relative
    // pronoun describes the subject; the main clause's verb comes later.)
    else if ((word === "was" || word === "were") && !RELATIVE.has(clause[at - 1] ?? "")) participleAt = at + 1;
    // "is enabled" describes a state; "is now enabled", "are all uploaded" report a change.
    else if (definite && ["is", "are", "'s"].includes(word)) {
      const next = clause[at + 1] ?? "";
      const known = PAST_FORMS.has(next) && !STATIVE_PARTICIPLES.has(next);
      if (COMPLETING.has(next) || known) participleAt = at + 1;
    }
    if (participleAt < 0) {
      // A headline: "Email sent to billing@…", "PR merged".
      // (An identifier may stand in the noun: "Invoice INV-204 sent", "PR #41 merged".)
      const identifier = (w: string) => /\d/.test(w) || w.startsWith("#");
      // ("TLS certificate for `shop.example.com` renewed": a noun may name its thing after for/of/on.)
      const named =
        before.length >= 3 && ["for", "of", "on"].includes(before.at(-2) ?? "") ? before.slice(0, -2) : before;
      const nouns = named.filter((w) => !identifier(w));
      const headlineNoun =
        // ("3 passed" has no noun: a count, not a task's object.)
        nouns.length >= 1 &&
        nouns.length <= 2 &&
        at <= 5 &&
        nouns.every((w) => /^[a-z]+$/.test(w) && !OPENERS.has(w) && !COPULAS.has(w) && !blocked([w]));
      if (headlineNoun) {
        const headline = PAST_FORMS.get(word);
        const after = clause[at + 1];
        // A passive headline has no object: "Email sent to…", not "Alice pushed the fix".
        // ("Files deleted from Drive stay in the Bin": a finite verb later makes it a modifier.)
        const finite = clause.slice(at + 1).some((w) => FINITE_LATER.has(w));
        // ("Sync changed in version 5.8": what a release of the software changed.)
        const release = /^in (?:version|release|v?\d)/.test(clause.slice(at + 1).join(" "));
        if (headline && (after === undefined || HEADLINE_NEXT.test(after)) && !finite && !release) {
          return { kind: kindOf(headline, clause.slice(at + 1)), verb: word };
        }
      }
      continue;
    }
    if (blocked(before)) return undefined;
    while (
      ["now", "already", "successfully", "all", "also", "just", "both", "been"].includes(clause[participleAt] ?? "")
    ) {
      participleAt++;
    }
    const verb = pastVerb(clause[participleAt]);
    if (verb) {
      const rest = clause.slice(participleAt + 1);
      // "…was fixed by the maintainers", "…was released in 2019": someone else, some other time.
      if (rest[0] === "by" && rest[1] !== "me" && rest[1] !== "us") return undefined;
      if (rest.includes("in") && rest.some((w) => /^(?:19|20)\d\d$/.test(w))) return undefined;
      if (/^in (?:version|release|v?\d)/.test(rest.join(" "))) return undefined;
      // A dated passive reports history ("…was committed to a public repo in March").
      // A dated simple past (…was committed to a public repo in March) or a state since a past time
      // (…has been paused since Tuesday) is history; "is paused until September 1" is this task's.
      if ((word === "was" || word === "were") && clause.some((w) => PAST_TIME.has(w))) return undefined;
      if (rest.includes("since")) return undefined;
      return { kind: kindOf(verb, rest), verb: clause[participleAt]! };
    }
    break;
  }
  for (const [pattern, kind, anySubject] of DONE_STATES) {
    if (!definite && !anySubject) continue;
    const match = pattern.exec(text);
    if (match && !blocked(text.slice(0, match.index).split(" "))) return { kind, verb: match[0] };
  }
  return undefined;
}

/** "The security team triaged the alert": a completed verb after a subject that is not the assistant. */
function someoneElseActed(clause: ReadonlyArray<string>): boolean {
  if (clause.some((word) => FIRST_PERSON.has(word)) || OPENERS.has(clause[0]!)) return false;
  const verbAt = clause.findIndex((word, index) => index > 0 && pastVerb(word) !== undefined);
  return verbAt > 0 && !clause.slice(0, verbAt).some((word) => COPULAS.has(word));
}

/** Whether the sentence holds a completed form of an action verb at all (the judge's band, see claims.ts). */
export function englishCue(plain: string): boolean {
  return tokens(plain.slice(0, 2000)).some((word) => pastVerb(word) !== undefined);
}

/**
 * A participle and one noun before a colon or a dash: a label ("Suggested order:", "Estimated
 * effort:", "Outdated firmware — check for…").
 */
// (Two such phrases joined by "or"/"and" are one label: "Expired card or changed number — update it…".)
const LABEL = /^[A-Za-z]+ed\s+[a-z]+(?:\s+(?:or|and)\s+[a-z]+(?:ed)?\s+[a-z]+)?\s*(?::(?!\d)|—|–|\s-\s)/;

/** A sentence that opens as a question stays one before its dash too ("Did I push — or not?"). */
const QUESTION_OPENING =
  /^(?:did|do|does|is|are|was|were|have|has|had|can|could|should|shall|will|would|may|might|want|what|why|how|when|where|who|which|any|anything)\b/i;

/** The action an English sentence claims, if any. */
export function englishClaim(plain: string, marked: boolean, checked = false): EnglishMatch | undefined {
  return englishClaims(plain, marked, checked, 1)[0];
}

/**
 * Every clause's completed action, in order: whose each one is decides later (agent.ts), so a
 * sentence whose first action is someone else's can still claim one of its own ("Given that you
 * think it was compromised, I've disabled sign-in").
 */
export function englishClaims(plain: string, marked: boolean, checked = false, limit = MAX_MATCHES): EnglishMatch[] {
  if (OUTSIDE_TASK.test(plain)) {
    // ("I checked the insurer lookup: it had 38 complaints last year": a time outside the task in a
    // clause of its own, after a colon, a semicolon or a dash, dates that clause, not the first.)
    const head = /^(.*?\S)\s*(?::(?!\d)|;|—|–)\s/.exec(plain)?.[1];
    if (!head || OUTSIDE_TASK.test(head)) return [];
    return englishClaims(head, marked, checked, limit);
  }
  if (/\?\s*$/.test(plain)) {
    // "I've committed it locally — want me to push?": a question asks only after its last dash or
    // semicolon; the statement before it still reports.
    const statement = /^(.*\S)\s*(?:—|–|;)\s*[^—–;]*\?\s*$/.exec(plain)?.[1];
    if (!statement || QUESTION_OPENING.test(statement)) return [];
    return englishClaims(statement, marked, checked, limit);
  }
  const matches: EnglishMatch[] = [];
  let otherSubject = false;
  let carriedModal = false;
  const all = clauses(tokens(plain));
  for (const [index, whole] of all.entries()) {
    // A predicate sits near its clause's start; reading a bounded prefix keeps the detector linear
    // in the answer's length (a 5 MB answer without punctuation is one clause).
    const clause = whole.length > MAX_CLAUSE_WORDS ? whole.slice(0, MAX_CLAUSE_WORDS) : whole;
    // "…will be exported and emailed to you": the modal carries to a following predicate that has
    // no subject of its own.
    const ownSubject = clause.some((word) => FIRST_PERSON.has(word)) || DEFINITE_SUBJECT.test(clause[0]!);
    // (The first clause's opening participle may find its finite verb in a later one: "Standardised
    // time in Britain and North America was driven by the railways".)
    // (Only up to the first punctuation: "Tracked container X: it cleared customs" has a clause of its own.)
    const later = () => (index === 0 ? tokens(plain.split(/[,;:—–(]|\s-\s/)[0] ?? "").slice(whole.length) : NO_WORDS);
    // ("Syndicated coverage: the same story…", "Proposed order: …": a participle and its noun before
    // a colon label what follows, the way a noun phrase does — a status says what was done to
    // something, and a label names it.)
    const label = index === 0 && LABEL.test(plain);
    const found =
      (carriedModal && !ownSubject) || label ? undefined : clauseClaim(clause, marked, otherSubject, checked, later);
    if (found) {
      matches.push(found);
      if (matches.length >= limit) break;
    }
    carriedModal = clause.some((word) => MODALS.has(word)) || (carriedModal && !ownSubject);
    otherSubject = someoneElseActed(clause) || (otherSubject && !clause.some((word) => FIRST_PERSON.has(word)));
  }
  return matches;
}
