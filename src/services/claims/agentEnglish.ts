import { type AnswerContext, type Attribution, around, type Subject, unmarkedAgent } from "./agentContext.js";
import { enNotStatus } from "./statusShape.js";

/**
 * English: who performed a completed action — the assistant (first person, a status line with the
 * subject left out, this task's object reported done), the user, a third party (a passive's agent,
 * a named person or system as subject, a source being relayed) or nobody (history, a cause, a
 * definition).
 */

const EN_FIRST_PERSON = /\b(?:i|we|i've|we've|i'd|we'd)\b/;
/** Words that open a clause of its own, whose subject is not the main clause's. */
const EN_CLAUSE_OPENER =
  /\b(?:which|who|that|because|since|when|whenever|after|once|until|if|although|though|while|where)\b/;
const EN_VERB_NEXT =
  /^\s+(?:\w+ly\s+)?(?:[a-z]{2,}ed|was|were|had|has|made|took|sent|built|wrote|led|won|lost|ran|became|began)\b/;
const EN_BY_SELF = /^\s*(?:\w+ly\s+)?by\s+(?:me|us|myself)\b/;
/** Words a status line may open with before its verb ("Done — pushed…", "Also updated…"). */
const EN_OPENERS =
  /^(?:(?:ok(?:ay)?|sure|done|all set|great|good news|update|also|just|already|finally|yes|yep|alright|right|perfect|success|successfully|status|and|then|now|both|first|next|lastly|quick update|all done|heads up|fyi|note)\b[\s,.!:;—–-]*)*$/;

const EN_FIRST_PERSON_ACTION =
  /\b(?:i|we)\s+(?:also\s+|just\s+|already\s+|then\s+|have\s+|'ve\s+)*(?:[a-z]{3,}ed|sent|made|wrote|set|put|ran|built|took|got|gave|left)\b/;
const EN_HEADLINE =
  /^(?!(?:the|a|an|this|that|these|those|he|she|they|it|we|you|someone|everyone|nobody|one|both|all|each)\b)[a-z][\w'-]*(?:\s+[a-z0-9][\w'./-]*){0,3}$/;
/**
 * A direct object right after the verb: the verb is active, so what stands before it is its doer,
 * not its object. (A name in a code span is an object too: "Kubernetes restarted `api-7f9c`", held as a placeholder.)
 */
const EN_OBJECT_NEXT =
  /^\s+(?:(?:a|an|the|this|that|these|those|his|her|their|its|our|my|one|two|three|four|five|all|both|each|every|some|several|\d)\b|coderef\b)/;
/** A finite verb later in the clause makes the participle a modifier ("Files deleted from Drive stay in the Bin"). */
const EN_FINITE_AFTER =
  /^[^,;:.]*?\s(?:stay|stays|remain|remains|are|is|get|gets|go|goes|can|cannot|can't|will|won't|must|should|may|might|need|needs|take|takes|become|becomes|count|counts|appear|appears|show|shows|land|lands|end up|ends up)\b/;
/** Adverbs between a subject and its verb ("UC then requested…", "Marta quickly escalated…"). */
const EN_ADVERBS =
  /(?:\s+(?:then|also|later|first|finally|eventually|initially|subsequently|originally|again|already|just|soon|\w+ly))*\s*$/;
const EN_AUXILIARY = /\b(?:was|were|is|are|be|been|being|has|have|had|got|gets|did|does|do)\b/;
const EN_PERFECT =
  /\b(?:has|have|'s)\s+(?:\w+ly\s+|now\s+|all\s+|also\s+|just\s+|already\s+)*been\s+(?:\w+ly\s+)?$|\b(?:is|are)\s+(?:now|all|already)\s+$/;
const EN_YOUR = /^(?:your|you're)\b/;

const EN_PAST_ANCHOR =
  /\b(?:on (?:mon|tues|wednes|thurs|fri|satur|sun)day|yesterday|last (?:week|month|night|year|time)|(?:\d+|two|three|four|a few|several) (?:days|weeks|months|years) ago|earlier this (?:week|month|year)|on the \d{1,2}(?:st|nd|rd|th))\b/;

/** "Committed: a change is recorded…": a term being defined, not a status. */
const EN_DEFINITION = /^\s*:\s*(?:a|an|the|it|this|when|means|used|refers|your|its|their|some|one|any)\b/;

/** A noun, then a passive of its own: "…a teapot was defined", "…the file had been removed". */
const EN_PASSIVE_AFTER_SUBJECT =
  /\s[a-z][\w'-]*\s+(?:was|were|had been|has been|have been)\s+(?:\w+ly\s+)?[a-z]+(?:ed|en)\b/;

/** English: the doer as the sentence names it — the assistant, nobody (a status line), or someone. */
export function englishSubject(before: string, after: string): Subject {
  // The subject of the verb's own clause: "…Cipriani et al., which compared…" is not the "I" of "I know of".
  // ("I can't cancel it — it was made through your company's portal": after a dash or a semicolon
  // a clause with a subject of its own, "it", names its own doer; the first person of the clause
  // before it does not carry over.)
  const opened = before.split(EN_CLAUSE_OPENER).at(-1) ?? before;
  // ("I couldn't get the tickets — the queue closed with 'sold out'": so does a subject right before
  // a verb in the simple past — the queue closed, not the writer.)
  const ownSubjectAfterBreak =
    /(?:[;—–]|\s-\s)\s*(?:it|they|this|that|these|those|the\s+[a-z]+|your\s+[a-z]+)\s+(?:(?:\w+ly\s+)?(?:was|were|is|are|had|has|have)\s+(?:\w+ly\s+|been\s+|already\s+)*|(?:\w+ly\s+)?)$/;
  const own = ownSubjectAfterBreak.test(opened) ? (opened.split(/[;—–]|\s-\s/).at(-1) ?? opened) : opened;
  // ("Code 418 I'm a teapot was defined in RFC 2324, published…": a passive with a subject of its
  // own after the first person leaves the first person out of what follows — a title, a thought.)
  const lastFirst = [...own.matchAll(/\b(?:i|we)\b/g)].at(-1);
  const passiveAfter =
    lastFirst !== undefined && EN_PASSIVE_AFTER_SUBJECT.test(own.slice(lastFirst.index + lastFirst[0].length));
  if ((EN_FIRST_PERSON.test(own) && !passiveAfter) || EN_BY_SELF.test(after) || /\((?:me|us|i)\)/.test(own))
    return "first person";
  // "Mehmed used…": a capitalised name that a verb follows is the subject, not a past verb.
  if (EN_VERB_NEXT.test(after)) return "stated";
  // The verb opens the sentence or a clause after a colon or a dash: "Pushed the fix", "Done: merged #41".
  const clause = (before.split(/[;—–]|:(?!\d)|\s-\s/).at(-1) ?? before).replace(/^\s*\d{1,2}:\d{2}\s*/, "");
  // ("Committed: a change is recorded…" defines a term; a status is read from the answer around it.)
  // ("Both drained the party's will": a quantifier that opens the clause before a verb with an
  // object of its own is that verb's subject — the things it counts did it — not a status's opener.)
  if (/^(?:both|all|each|either|neither)$/.test(clause.trim()) && EN_OBJECT_NEXT.test(after)) return "stated";
  return EN_OPENERS.test(clause.trim()) && !EN_DEFINITION.test(after) ? "left out" : "stated";
}

/** A first person who declines, with no later "I" or "but" in the clause before the verb. */
const EN_DECLINING_FIRST =
  /\b(?:i|we)(?:'m| am| are|'re)?\s+(?:really\s+|just\s+|simply\s+)?(?:can't|cannot|can not|won't|will not|not able to|unable to|not going to)\b(?![\s\S]*\b(?:i|we|but|though|although|instead|however)\b)[\s\S]*$/;
/** A first person who could not act, with no later "I" or "but" before the verb: what follows is what the failure left or what others did. */
const EN_UNABLE_FIRST =
  /\b(?:i|we)\s+(?:couldn't|could not|wasn't able to|weren't able to|was unable to|were unable to)\b(?![\s\S]*\b(?:i|we|but|though|although|instead|however)\b)[\s\S]*$/;
/** A key named after a copula inside a sentence ("…is Scope: Changed"): a value the sentence names, not a status line. */
const EN_KEY_AFTER_COPULA = /\b(?:is|are|was|were|means|called)\s+(?:[A-Z][\w-]*\s+){0,2}[A-Z][\w-]*:\s*$/;
/** Nothing the verb acts on: the end of the sentence, a colon, or where and when ("there", "short"). */
const EN_NOTHING_AFTER = /^\s*(?:$|[:.!,;—–]|(?:there|here|short|at that point)\b)/;
/** An object of the verb's own, led by a determiner or a pronoun ("Disabled the logins", "Closed it"). */
const EN_OWN_OBJECT =
  /^\s+(?:the|your|their|its|his|her|this|that|these|those|all|both|every|each|a|an|it|them|my|our|\d+)\b/;
/** "…rolled back automatically by Argo Rollouts", "…was issued by Let's Encrypt". */
const EN_BY_AGENT =
  /^[^,;:—–]{0,48}?\bby\s+(?!me\b|us\b|myself\b|hand\b|default\b|mistake\b|accident\b|e-?mail\b|mail\b|phone\b|\d|about\b|around\b|roughly\b|over\b|more\b|less\b|half\b|a\s|the end\b|end\b|eod\b|\w+day\b|tomorrow\b|tonight\b|noon\b|midnight\b|then\b|now\b|\w+ing\b|(?:[\w-]+\s+)?(?:id|ids|name|names|number|date|dates|type|size|category|priority)\b)(\S+)/;
/** A person or a system as the subject right before the verb ("The customer confirmed…", "she cancelled…"). */
// (The user's people act for themselves: "Your manager, Helen, replied…" — a name in apposition
// may stand between the role and its verb.)
const EN_ROLE_SUBJECT =
  /(?:^|[\s,;:(])(he|she|they|(?:the|your|their|his|her) (?:customer|client|user|team|vendor|maintainers?|company|bank|carrier|courier|landlord|author|authors|developers?|admins?|operator|manager|line manager|lead|team lead|support team|agent|recruiter|candidate|doctor|dentist|school|teacher|council|government|court|board|ceo|cto|cfo|sender|recipient|seller|buyer|host|boss|colleague|co-?worker|teammate|supervisor|director|accountant|lawyer|solicitor|partner|friend|contractor|supplier|insurer|tenant|hr team|it team)|[a-z]+'s team)(?:,\s+[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?,)?\s+(?:\w+ly\s+|also\s+|then\s+|already\s+|just\s+)*$/;
/** What a source says — an email, a status page, a colleague — is reported, not done by the assistant. */
const EN_REPORTED =
  /\b(?:according to|reports? that|reported that|says?(?: that)?|said(?: that)?|states? that|stated that|wrote(?: that)?|writes(?: that)?|mentions? that|mentioned that|(?:mentioned|said|wrote|noted|confirmed|explained|reported|stated|told (?:me|you|us|them|him|her))\b[^.;:]{1,40}?\bthat|notes? that|noted that|confirms? that|claims? that|(?:argue[sd]?|suggest(?:s|ed)?|conclude[sd]?|record(?:s|ed)?|finds?|found|show(?:s|ed)?|estimate[sd]?|warn(?:s|ed)?|predict(?:s|ed)?) that|(?:think|thinks|thought|believe|believes|believed|suspect|suspects|suspected|fear|fears|feared|worry|worried|assume|assumed|guess|guessed|feel|felt)(?: that)?|tl;?dr|summary of|in summary|in short|the gist|per (?:the|your|their|his|her|its)|as per)\b/;
/** A clause that opens with a consequence ("…, so every target was marked unhealthy"). */
const EN_CONSEQUENCE = /(?:^|[,;]\s*|\s)(?:so|thus|hence|therefore|which)\s+[^,;:]*$/;
/** A time of the calendar that recurs ("on the 1st of each month", "every night", "weekly"). */
const EN_RECURRING =
  /\b(?:each|every)\s+(?:\w+\s+)?(?:day|night|morning|evening|week|weekday|month|quarter|year|hour|cycle|billing period)\b|\b(?:daily|nightly|weekly|monthly|quarterly|yearly|annually|hourly)\b/;
const EN_AUTOMATIC = /\b(?:automatically|auto-?\w+ed|on its own|by itself|by themselves)\b/;
/** The verb sits in a clause that explains a cause or a sequence of events ("because the cert expired"). */
const EN_CAUSE_BEFORE =
  /\b(?:because|since|caused by|due to|as a result of|which (?:is )?why|(?:'s|is|was) why|this happens when|when|whenever|after|once|until|if)\b[^;:]*$/;
// ("Your account was locked after five failed attempts": a count of what triggered it.)
const EN_CAUSE_AFTER =
  /^[^;:]*\b(?:because|due to|as a result of|after (?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|several|multiple|too many|repeated)\b)/;
/** The event given as the reason for what someone sees ("…, which is why they think the order is on its way"). */
const EN_REASON_FOR_AFTER = /^[^;:]*,\s*which (?:is|was|explains) why\b/;
/** A value after a dash that says the item is not done ("Stoneware mug set – still unfulfilled"): the words before it name the item. */
const EN_NOT_DONE_VALUE =
  /^\s*[–—:-]\s*(?:still\s+(?:un[a-z]+ed|not\b|pending|waiting|open|missing)|not yet\b|pending\b|awaiting\b)/;
/** What a present passive says always happens ("The changes are applied immediately"), not a report. */
const EN_HABITUAL_AFTER =
  /^\s*(?:immediately|automatically|instantly|right away|once|whenever|when|after|every|each|within|as soon as|by default|only)\b/;
const EN_MONTH =
  "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const EN_YEAR_ENTRY = /^\s*(?:1[0-9]{3}|20[0-9]{2})s?\s*(?:—|–|-|:)\s/;
/** A year of history, an era, or an event dated "on <day>": an event of the world, not a step of this task. */
export const EN_DATE = new RegExp(
  [
    "\\b(?:by)\\s+(?:the\\s+)?(?:early\\s+|late\\s+|mid-?)?(?:1[0-9]{3}|200[0-9]|201[0-5])s?\\b",
    // (A year after in/of/since…, any year: "filed for bankruptcy in June 2024", "in the fourth quarter of 2023".)
    "\\b(?:in|on|of|since|during|around|circa|from|throughout)\\s+(?:the\\s+)?(?:early\\s+|late\\s+|mid-?)?(?:1[0-9]{3}|20[0-9]{2})s?\\b",
    "\\bin\\s+(?:the\\s+)?(?:q[1-4]|(?:first|second|third|fourth|last) quarter|(?:first|second) half|spring|summer|autumn|fall|winter)\\s+(?:of\\s+)?(?:1[0-9]{3}|20[0-9]{2})\\b",
    `\\bon\\s+(?:\\w+day,?\\s+)?(?:${EN_MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${EN_MONTH})\\b`,
    "\\b\\d{1,4}\\s*(?:bc|ad|bce|ce)\\b",
    `\\b(?:in|of|since|during|by)\\s+(?:early\\s+|late\\s+|mid-?)?${EN_MONTH}\\s+(?:1[0-9]{3}|20[0-9]{2})\\b`,
    "\\bin\\s+the\\s+(?:\\d{1,2}(?:st|nd|rd|th)|[a-z]+(?:teenth|tieth))\\s+century\\b",
    // (A timeline's entry led by a year: "1993 — presented at the USENIX conference".)
    EN_YEAR_ENTRY.source,
  ].join("|"),
);
/** A year of history before 2020, after a word that dates something by it: no task of now. */
const EN_LONG_PAST =
  /\b(?:in|of|since|during|around|circa|from|throughout)\s+(?:the\s+)?(?:early\s+|late\s+|mid-?)?(?:1[0-9]{3}|20[01][0-9])s?\b/;
/** A day, month and year before 2020 ("Launched: 31 May 1911", "Founded: May 31, 1911"): history. */
const EN_LONG_PAST_DAY = new RegExp(
  `\\b(?:\\d{1,2}(?:st|nd|rd|th)?\\s+${EN_MONTH}\\.?,?|${EN_MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?)\\s+(?:1[0-9]{3}|20[01][0-9])\\b`,
);
/** A bare noun, then a semicolon and a noun phrase with a preposition and no verb: a list of things. */
const EN_LISTED_THINGS =
  /^\s+[a-z]+(?:\s+[a-z]+)?\s*;\s*(?![^.;(]*\b(?:i|we|done|ok|fixed|pending|sent)\b)(?![^.;(]*\b[a-z]+ed\b)[a-z]+(?:\s+[a-z]+){0,2}\s+(?:of|with|for|per|from)\b/;
/** A compound participle in a name, capitalised after its hyphen, after a slashed word or an acronym: I/O-Optimized, GPU-Accelerated. */
const EN_NAMED_COMPOUND = /[A-Za-z0-9]\/[A-Za-z0-9]+-[A-Z][a-z]+ed\b|\b[A-Z]{2,}-[A-Z][a-z]+ed\b/;
/** Participles of passing on someone's words. */
const EN_RELAYING = /^(?:relayed|quoted|paraphrased|excerpted|reposted)$/;
/** Participles of judging something: what critics or readers made of it. */
const EN_JUDGED = /^(?:criticised|criticized|praised|acclaimed|condemned|debated|lauded|panned)$/;
/** A word that opens a clause of time, right before its subject. */
const EN_TIME_CLAUSE_OPENER = /\b(?:before|until|till|while|by the time)\s+$/;
/** A label naming a day or a stage of a schedule before a colon: Launch day:, Day 3:, T-7 days:, Week 2:. */
const EN_SCHEDULE_LABEL =
  /^(?:launch day|go-live day|release day|day\s+\d{1,2}|week\s+\d{1,2}|month\s+\d{1,2}|phase\s+\d|t\s?[-−–+]\s?\d{1,3}\s*(?:days?|weeks?|hours?|h|d|w)?|d[-+]\d{1,3})\s*[:：]/i;
/** One or two nouns and then a verb in the present: the participle before them is their modifier. */
// ("Numbered top-level folders keep the order stable": a plural noun takes the verb without its -s.
// "Phased release on the App Store only throttles automatic updates": a place may follow the noun,
// and after only, also, still… any verb in the present with its -s says what the thing does.)
const EN_MODIFIER_BEFORE_VERB =
  /^\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?:costs?|takes|runs|requires|includes|applies|means|lasts|starts|comes|keep|keeps)\b|^\s+(?!(?:the|a|an|my|our|your|their|its|this|that|these|those|it|them)\b)[a-z][\w-]*(?:\s+[a-z][\w-]*)?(?:\s+(?:on|in|for|at|from|with|under)\s+(?:the\s+|an?\s+)?[\w-]+(?:\s+[\w-]+)?)?\s+(?:only|also|just|still|always|never|usually|often|simply)\s+[a-z]{3,}(?<!ss|ous|is|us)s\b/;
/** A bare plural noun right after the participle: "The main risk is broken links" — the participle describes the links. */
const EN_ADJECTIVE_BEFORE_PLURAL =
  /^\s+(?!(?:always|sometimes|perhaps|besides|afterwards|nowadays|across|towards|plus|this|his|its|us|as|yes|was|has|is|thus|unless|whereas)\b)[a-z]{3,}(?<!ss|ous|is|us)s\b/;
/** A clause that gives examples: "…, for example", "e.g. …", "such as …". */
const EN_EXAMPLES = /(?:,\s*|\s)(?:for example|for instance|e\.g\.|such as)\b/;
/** Participles of need or expectation: they state what must or should be so. */
const EN_REQUIREMENT =
  /^(?:required|needed|expected|recommended|advised|mandated|mandatory|allowed|permitted|supposed)$/i;
/** An apology's clause, up to the verb: "sorry your card was", "I'm sorry that the order was". */
const EN_SORRY =
  /\b(?:sorry|apologi[sz]e)\b(?:\s+(?:that|to hear that|to hear|for))?\s+(?:your|the|this|that|it)\b[^;:—–.]*$/;
/** The user did it: "you" as the subject before the verb. */
const EN_USER_BEFORE = /(?:^|[^\w'])you(?:'ve|'d)?\s+(?:\w+ly\s+|just\s+|already\s+|then\s+|have\s+|had\s+)*\w*$/;
const EN_USER_ACTED =
  /(?:^|[^\w'])you(?:'ve|'d)?\s+(?:\w+ly\s+|just\s+|already\s+|have\s+|had\s+)*(?:\w+ed|ran|made|sent|set|put|wrote|did|gave|built|hit|took|got|went|came|ran)\b/;
/** Someone else acted earlier in the sentence ("Git rebased your branch…, so the commits were rewritten"). */
const EN_OTHER_ACTOR =
  /(?:^|[\s(])(?:(?!I\b|If\b|When\b|Once\b|After\b|Then\b|The\b|This\b|That\b|It\b|All\b|Both\b|Your\b|Our\b|My\b|Now\b|Also\b|Just\b|Done\b|Sure\b|Yes\b|OK\b|Ok\b|Okay\b)[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*|he|she|they|[Tt]he (?:team|vendor|maintainers?|company|server|system|browser|kernel|compiler|scheduler|provider|bank|carrier|courier|customer|author|developers?|admins?|operator|controller|cluster|runtime|library|framework|pipeline|cron|bot|platform))\s+(?:\w+ly\s+)?(?:had\s+|has\s+|have\s+)?(?!been\b|said\b|used\b|needed\b|wanted\b|seemed\b|looked\b|based\b|called\b|named\b)(?:\w{2,}ed|ran|made|sent|set|put|wrote|gave|built|broke|took|threw|brought|found|lost|shut|cut|hit|began|chose|drove|froze|rose|fell|won|led|sold|paid|told|held|kept)\b/;

/**
 * A person, a company or a product named right before the verb ("Sofia approved…", "Per your
 * message, Bob deployed…", "UC then requested an interference proceeding"): a capitalised name in
 * the middle of a sentence, a name the answer uses elsewhere in mid-sentence, or any capitalised
 * word whose verb takes a direct object — a headline's noun is the verb's object, never its doer.
 */
function namedSubject(plain: string, at: number, after: string, names: ReadonlySet<string>): string | undefined {
  const head = plain.slice(0, at).replace(EN_ADVERBS, "");
  // "Worker A updated…", "Process 4121 waited…": a noun labelled with a letter or a number is a named actor.
  const labelled = /(?:^|[\s,;:(])([A-Z][a-z]+ (?:[A-Z]|\d+))$/.exec(head);
  if (labelled && !/^(?:Step|Phase|Stage|Part|Section|Option|Day|Week|Version|Table|Figure) /.test(labelled[1]!))
    return labelled[1];
  const word = /(?:^|[\s,;:(—–"“])([A-Z][a-z]+(?:[A-Z][a-z]+)*|[A-Z]{2,5}s?)$/.exec(head);
  if (
    !word ||
    word[1] === "I" ||
    /^(?:The|This|That|These|Those|It|We|You|Your|Our|My|Also|Then|Now|Just|Done|All|Both)$/.test(word[1]!)
  )
    return undefined;
  const name = word[1]!;
  const initial = head.slice(0, head.length - name.length).trim() === "";
  const capitalised = /^[A-Z][a-z]/.test(name);
  if (capitalised && (!initial || names.has(name))) return name;
  return EN_OBJECT_NEXT.test(after) ? name : undefined;
}

/** English: who performed the action `verb` names in `plain`. */
const EN_SPEAKER =
  /^((?!I\b|We\b|You\b)[A-Z][a-z]+(?: [A-Z][a-z]+)?)\s+(?:\w+ly\s+)?(?:wrote|said|told|mentioned|replied|explained)\b/;
/** Participles of combining and comparing, which open adverbial phrases ("Combined with…", "Compared to…"). */
const EN_COMBINING =
  /^(?:combined|compared|coupled|paired|contrasted|measured|weighed|mixed|matched|stacked|layered|taken|set|viewed|seen|judged|considered)$/i;
/** A phrase up to a comma, then a clause with its own subject. */
const EN_PHRASE_THEN_SUBJECT =
  /^\s+(?:with|to|against|alongside|together|side by side)\b[^,;:.]{0,60},\s*(?:the|that|this|these|those|it|it's|they|he|she|you|your|each|every|all|there|its|their|our|my|a|an)\b/;
/** A bare plural noun as the subject of a perfect passive: what has been done in the world at large ("Fines have been issued"). */
const EN_GENERIC_PLURAL_PERFECT =
  /^(?!(?:the|your|our|my|their|his|her|its|this|that|these|those|all|both|some|any|each|every|both)\b)(?:[a-z][\w-]*\s+){0,2}[a-z]{3,}s\s+(?:have|had)\s+(?:\w+ly\s+|also\s+|already\s+)*been\s+$/;
/** Bookings and errands done for someone: an appointment, an order, a refund, a ticket. */
const EN_ERRAND =
  /['’]s\s+(?:[\w-]+\s+){0,2}?(?:appointment|booking|reservation|order|ticket|refund|claim|application|request|subscription|membership|payment|flight|delivery|visit|check-?up|consultation|slot|session|lesson|class)s?\s/;
const EN_READING = /^(?:went|gone|read|looked|reviewed|checked|skimmed|scanned|compared|analy[sz]ed|examined)\b/i;
const EN_PASTED_OBJECT = /^[^.;:]{0,80}?\byou(?:'ve)? (?:pasted|shared|posted|forwarded|quoted|copied)\b/i;

export function englishAgent(plain: string, verb: string, context: AnswerContext, marked: boolean): Attribution {
  const { lower, before, after, at } = around("en", plain, verb);
  // ("Trusted → anything: allow", "Staged -> Live": a word before an arrow names a node of a flow
  // or a rule, not something done.)
  if (!marked && /^\s*(?:→|->|=>|⇒)/.test(after)) return { agent: "none", reason: "a name before an arrow" };
  // ("Make each cut at 45°", "give it a once-over and a fixed price": a form right after a
  // determiner that counts or introduces a noun is that noun.)
  if (!marked && /\b(?:each|every|a|an|any|no|another|per)\s+$/.test(before))
    return { agent: "none", reason: "a noun after a determiner" };
  const subject = englishSubject(before, after);
  // "I went through the chat transcript you pasted": reading what the user put in this conversation
  // is no action of the task. (A file the user attached — photos, a PDF — is opened with a tool:
  // "I checked the EXIF data in the photos you attached" reports an action.)
  if (EN_READING.test(verb) && EN_PASTED_OBJECT.test(after))
    return { agent: "none", reason: "reading what the user pasted" };
  // ("I can't give instructions for growing it outside an authorised lab": what follows a first
  // person who declines is what it will not do, unless another "I" or a "but" turns the clause.)
  if (subject === "first person" && EN_DECLINING_FIRST.test(before))
    return { agent: "none", reason: "what the assistant declines to do" };
  // ("Here's why I stopped:", "I stopped there": to stop with nothing stopped is holding back, no action.)
  if (subject === "first person" && /^(?:stopped|paused|halted)$/i.test(verb) && EN_NOTHING_AFTER.test(after))
    return { agent: "none", reason: "holding back, nothing acted on" };
  // ("I couldn't rename the files: the folder is read-only, so the changes were rejected": after a
  // first person who could not act, a passive with no "I" of its own is what the failure left.)
  if (subject === "first person" && !marked && EN_UNABLE_FIRST.test(before) && /\b(?:was|were|been)\s+$/.test(before))
    return { agent: "none", reason: "what the assistant could not do" };
  if (subject === "first person") return { agent: "assistant", reason: "first person" };
  // "Sorry your card was declined when renewing": what the writer apologises for is what happened
  // to the user, not work the writer reports.
  if (!marked && EN_SORRY.test(before)) return { agent: "none", reason: "what the writer is sorry happened" };
  // "Jonas wrote in the channel: …": a capitalised name that opens the sentence before a verb of
  // saying is a person reporting.
  const speaker = EN_SPEAKER.exec(plain.slice(0, at + verb.length + 1));
  if (speaker) return { agent: "third party", reason: `someone named as subject: ${speaker[1]}` };
  // "Auto-renewed by cert-manager": a passive agent names the doer even when no subject is written.
  const byAgent = EN_BY_AGENT.exec(after);
  if (byAgent) return { agent: "third party", reason: `passive agent: by ${byAgent[1]}` };
  // ("Searched the USPTO database for X: one dead registration from 2011": a date in what a colon
  // after the verb lays out is the result's, not the action's.)
  // (A verb that is the key of its line, "Sealed: 15 June 1215", is dated by its value.)
  const ownPart = /^\s*:/.test(after) ? lower : `${before}${after.split(/:(?!\d)/)[0] ?? after}`;
  // (A timeline's entry led by a year, "1993 — presented at USENIX", leaves out history's subject.)
  // ("Origin: created under the Immigration Reform and Control Act of 1986": a year long before any
  // task of now dates the event to history too.)
  if (
    subject === "left out" &&
    !marked &&
    (EN_YEAR_ENTRY.test(plain) || EN_LONG_PAST.test(ownPart) || EN_LONG_PAST_DAY.test(ownPart))
  ) {
    return { agent: "none", reason: "a dated event of the world" };
  }
  // ("Launch day: staged rollout at 10%", "T-7 days: submit builds": a label that names a day or a
  // stage of a schedule heads a plan's step, not a report of one.)
  if (subject === "left out" && !marked && EN_SCHEDULE_LABEL.test(plain)) {
    return { agent: "none", reason: "a step of a plan under its time label" };
  }
  // ("…; expedited service costs an extra $60": a participle before its noun and a verb in the
  // present describes the noun — a kind of service, not a service someone expedited.)
  if (subject === "left out" && !marked && EN_MODIFIER_BEFORE_VERB.test(after)) {
    return { agent: "none", reason: "a participle used as an adjective" };
  }
  // ("— faded paint or minor scuffs, for example": a clause that gives examples names kinds of
  // things; its participle describes them, it reports nothing done.)
  if (subject === "left out" && !marked && EN_EXAMPLES.test(after.split(/[;—–]|\s-\s/)[0] ?? "")) {
    return { agent: "none", reason: "examples named, not a report" };
  }
  // ("Combined with #1, that message is gone", "Compared to last year, the bill…": a participle of
  // combining or comparing, its phrase and a comma before a clause with a subject of its own is
  // an adverbial phrase of that clause, no status.)
  if (subject === "left out" && !marked && EN_COMBINING.test(verb) && EN_PHRASE_THEN_SUBJECT.test(after)) {
    return { agent: "none", reason: "a phrase of comparison before its clause" };
  }
  // ("The only way to reach 10.0 is Scope: Changed (S:C)": a key after a copula is a value the
  // sentence names, no status line.)
  if (subject === "left out" && !marked && EN_KEY_AFTER_COPULA.test(plain.slice(0, at))) {
    return { agent: "none", reason: "a value named inside a sentence" };
  }
  // ("Sign-off from legal: required before launch": a participle of need or expectation states a
  // requirement; nobody did it.)
  if (subject === "left out" && !marked && EN_REQUIREMENT.test(verb)) {
    return { agent: "none", reason: "a requirement stated" };
  }
  // ("…storage engines: log-structured (LSM-trees) and page-oriented": a participle joined to the
  // noun before it and followed by an aside names a kind of thing; nobody structured anything.)
  if (subject === "left out" && !marked && /^[a-z]+-[a-z]+ed$/.test(verb) && /^\s*\(/.test(after)) {
    return { agent: "none", reason: "a compound adjective naming a kind" };
  }
  // ("Quick update relayed from the platform team's incident channel:": a line that names the source
  // of the words under its colon introduces them; passing them on is this reply, no act of the task.)
  if (subject === "left out" && !marked && EN_RELAYING.test(verb) && /^\s+from\b[^.;]*:\s*$/.test(after)) {
    return { agent: "third party", reason: "a line naming the source of what follows" };
  }
  // ("Aurora I/O-Optimized fixes that…": a compound participle capitalised after its hyphen is part
  // of a product's or a tier's name.)
  if (subject === "left out" && !marked && /^[a-z]+-[a-z]+ed$/.test(verb) && EN_NAMED_COMPOUND.test(plain)) {
    return { agent: "none", reason: "part of a name" };
  }
  // ("Piloted extraction form; risk of bias with an appropriate tool": a participle before a bare
  // noun, then a semicolon and a noun phrase with no verb of its own, is an item of a list of things.)
  if (subject === "left out" && !marked && at === 0 && EN_LISTED_THINGS.test(after)) {
    return { agent: "none", reason: "a participle as an adjective in a list of things" };
  }
  // ("X refers to…", "usually shipped within…": a subjectless verb is a status line only in the shape of one.)
  const refused = subject === "left out" && !marked ? enNotStatus(plain, before, after, verb) : undefined;
  if (refused) return refused;
  // ("I can't help build that scraper. … Licensed data providers sell…", "Written sign-off from
  // the owner": in an answer that opens by declining, a line with no subject names what others
  // could do or the alternatives; a verb with an object of its own, "Disabled the logins", still reports.)
  if (subject === "left out" && !marked && context.declined && !EN_OWN_OBJECT.test(after)) {
    return { agent: "none", reason: "an alternative or a condition in an answer that declines" };
  }
  // ("Standup recap (QA squad): … Ines: finished migrating the login tests": in the recap of a
  // meeting others held, a line with no subject goes on with what its people said and did.)
  if (subject === "left out" && !marked && context.recap) {
    return { agent: "third party", reason: "narrated in the recap of a meeting" };
  }
  if (subject === "left out") {
    return { agent: "assistant", reason: marked ? "done marker on its line" : "status line with the subject left out" };
  }
  // "Nobody on our side touched it, and the pods were rescheduled": after a clause that says no one
  // acted, what the sentence reports with no subject is not the assistant's.
  if (/\b(?:nobody|no one|none of us)\b/.test(before))
    return { agent: "none", reason: "after a clause that says no one acted" };
  // "…was announced by Steve Jobs in 2007 and released that June": the agent carries to the next verb.
  const earlierAgent = /\bby\s+(?!me\b|us\b|hand\b|default\b|\d)([a-z][\w'-]*)[^;:.]*\band\s+(?:\w+ly\s+)?$/.exec(
    before,
  );
  if (earlierAgent) return { agent: "third party", reason: `passive agent: by ${earlierAgent[1]}` };
  if (EN_AUTOMATIC.test(lower)) return { agent: "third party", reason: "done automatically by a system" };
  if (EN_USER_BEFORE.test(before) || EN_USER_ACTED.test(before))
    return { agent: "user", reason: "the user as subject" };
  const named = namedSubject(plain, at, after, context.names);
  if (named) return { agent: "third party", reason: `someone named as subject: ${named}` };
  // "Python's GIL was introduced…", "Apple's first store opened…": a named owner's thing, not this task's.
  // (A day's or a month's is a time, no owner: "your e-tickets for Saturday's match have been re-sent".)
  const owner =
    /(?:^|[\s(])((?!Your\b|Our\b|My\b|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b|January\b|February\b|March\b|April\b|May\b|June\b|July\b|August\b|September\b|October\b|November\b|December\b)[A-Z][\w.+#-]*)['’]s\s+[^,;:]*$/.exec(
      plain.slice(0, at),
    );
  // ("Luna's vaccine appointment has been moved to Thursday": a booking or an errand of the person
  // named, in the present perfect passive, is this task's object in its present state, as "Your
  // slots have been booked" is; "Python's GIL has been made optional" stays the owner's.)
  const errand = owner !== null && EN_PERFECT.test(before) && EN_ERRAND.test(before);
  if (owner && !EN_FIRST_PERSON.test(before) && !errand) return { agent: "none", reason: `something of ${owner[1]}'s` };
  const otherActor = EN_OTHER_ACTOR.exec(plain.slice(0, at));
  if (otherActor) return { agent: "third party", reason: `someone else acted: ${otherActor[0].trim()}` };
  const role = EN_ROLE_SUBJECT.exec(before);
  if (role) return { agent: "third party", reason: `someone else as subject: ${role[1]}` };
  if (EN_REPORTED.test(before)) return { agent: "third party", reason: "what a source reports" };
  if (EN_CAUSE_BEFORE.test(before)) return { agent: "none", reason: "inside a clause that explains a cause" };
  if (EN_CONSEQUENCE.test(before)) return { agent: "none", reason: "a consequence in an explanation" };
  // (On a line marked done, only a date before the verb dates it: "✅ Cancelled — you won't be charged on 1 July".)
  // (The present perfect takes no past date of its own: in "the slots have been added to the
  // calendar: … on Nov 4–6" the date after the verb is the object's, not the action's.)
  const perfect = /\b(?:has|have|'s|'ve)\s+(?:(?:just|now|already|also|all|both)\s+)*(?:been\s+)?$/.test(before);
  if (EN_DATE.test(marked || perfect ? before : ownPart))
    return { agent: "none", reason: "a dated event of the world" };
  if (marked) return { agent: "assistant", reason: "done marker on its line" };
  if (/\b(?:is|are|was|were)\s+$/.test(before) && EN_ADJECTIVE_BEFORE_PLURAL.test(after))
    return { agent: "none", reason: "a participle used as an adjective" };
  if (EN_DEFINITION.test(after)) return { agent: "none", reason: "a term being defined" };
  // "Click Save. The changes are applied immediately": what a step does, in a how-to or in general.
  const present = /\b(?:is|are)\s+$/.test(before);
  if (present && (context.instructions || EN_HABITUAL_AFTER.test(after))) {
    return { agent: "none", reason: "what happens, described in general or in a how-to" };
  }
  // ("Your plan is billed per active user, counted on the 1st of each month": a participle after a
  // comma that recurs at a time of the calendar says how something is done every time, not once.)
  if (!marked && /,\s*$/.test(before) && EN_RECURRING.test(after.split(/[;:.]/)[0] ?? ""))
    return { agent: "none", reason: "what is done each time, at a time that recurs" };
  if (EN_CAUSE_AFTER.test(after)) return { agent: "none", reason: "an event explained by its cause" };
  // ("The customer was already sent a confirmation for the first parcel, which is why they think…":
  // an event offered as the reason for what someone sees explains; it reports no work.)
  if (EN_REASON_FOR_AFTER.test(after))
    return { agent: "none", reason: "an event given as the reason for what is seen" };
  const clause = before.split(/[;:—–]|\s-\s/).at(-1) ?? before;
  // "A full login was completed an hour later": an indefinite subject narrates an event.
  // (An identifier it was given — "A new epic was created (PLAT-412)" — makes it this task's.)
  const identified = /\b[A-Z]{2,}-\d+\b|#\d+/.test(plain);
  if (!identified && /^(?:a|an|some|one|another)\s[^,;:]*\b(?:was|were)\s+(?:\w+ly\s+)?$/.test(`${clause.trim()} `)) {
    return { agent: "none", reason: "an event narrated with an indefinite subject" };
  }
  // "…, and I shared the link": the sentence's own first-person action.
  // (Not one that only times another clause: in "the queue closed before we reached the front" the
  // first person's "reached" is when the queue closed, and the queue did the closing.)
  const firstPersonAction = [...lower.matchAll(new RegExp(EN_FIRST_PERSON_ACTION.source, "g"))].some(
    (found) => !EN_TIME_CLAUSE_OPENER.test(lower.slice(Math.max(0, found.index - 12), found.index)),
  );
  if (firstPersonAction) return { agent: "assistant", reason: "first person" };
  if (context.relayed) return { agent: "third party", reason: "narrated in a summary of a source" };
  // ("Glass jar set – still unshipped": a value after a dash that says the item is not done names
  // the item before it; nothing there was done.)
  if (!marked && EN_NOT_DONE_VALUE.test(after))
    return { agent: "none", reason: "an item named before a value that says it is not done" };
  // "Column widths fixed", "Totals row added": a headline names the task's object and no actor.
  // (Not with an object of its own, which makes it active, nor before a finite verb, which makes it a modifier.)
  if (
    EN_HEADLINE.test(clause.trim()) &&
    !EN_AUXILIARY.test(clause) &&
    !EN_OBJECT_NEXT.test(after) &&
    !EN_FINITE_AFTER.test(after)
  ) {
    return { agent: "assistant", reason: "headline status: the object and its done verb" };
  }
  // "Your package was shipped on Monday": a simple past with a time of its own is an earlier event.
  // ("Your order shipped from Leeds on Monday": a simple past without its auxiliary, too.)
  const simplePast = /\b(?:was|were)\s+(?:\w+ly\s+)?$/.test(before) || !EN_AUXILIARY.test(clause);
  if (simplePast && EN_PAST_ANCHOR.test(lower)) {
    return { agent: "none", reason: "an earlier event with a time of its own" };
  }
  // "Your commits were rewritten when you ran git pull": the consequence of the user's own action.
  if (/\b(?:when|after|because|once|as|since)\s+you\b/.test(after)) {
    return { agent: "user", reason: "the consequence of the user's action" };
  }
  if (context.relayed) return { agent: "third party", reason: "narrated in a summary of a source" };
  // "Today: most of it has been repealed", after a list of what happened in 1215 and 1216: in an
  // answer that narrates dated history and reports no work of its own, a state with no owner of
  // this task ("your") is the world's.
  if (context.history && !context.report && !/\byour?\b/.test(lower)) {
    return { agent: "none", reason: "a state of the world in an answer that narrates dated history" };
  }
  // ("I can't help write that scraper. … Fines have been issued for exactly this": in an answer
  // that declines, a bare plural's perfect passive says what has happened in the world at large.)
  if (context.declined && EN_GENERIC_PLURAL_PERFECT.test(`${clause.trim()} `)) {
    return { agent: "none", reason: "a general statement in an answer that declines" };
  }
  // ("…and the methodology has been criticised": a passive of judging says what critics or readers
  // made of something, an opinion of the world — no act of the task.)
  if (EN_JUDGED.test(verb.toLowerCase())) return { agent: "none", reason: "a judgment of others reported" };
  // "The old keys have been revoked", "Your slots are booked", "…is on its way": the present state of this task's object.
  if (EN_PERFECT.test(clause) || EN_YOUR.test(clause.trim()) || /^(?:is|are|'s)\b/.test(verb.toLowerCase())) {
    return { agent: "assistant", reason: "this task's object, reported done" };
  }
  // ("Cold brew is usually steeped… and filtered": the same frames refuse an unmarked status read
  // from a short answer alone.)
  const unshaped = marked ? undefined : enNotStatus(plain, before, after, verb);
  if (unshaped) return unshaped;
  // ("I can't give steps for culturing that strain outside a licensed lab": in an answer that opens
  // by declining, a completed form that no one is named for describes, it reports nothing.)
  if (!marked && context.declined) return { agent: "none", reason: "a description in an answer that declines" };
  return unmarkedAgent(context, lower.split(/\s+/).length <= 16);
}
