/**
 * The rules that find secrets inside free text: one row per shape, in the order they run (README,
 * "Secrets in the ledger", lists the same table). Every pattern is linear in the text's length:
 * each starts at a fixed prefix or at a word boundary and its repeated parts cannot overlap, so a
 * megabyte of hostile text costs one pass per rule.
 */

export const REDACTED = "[REDACTED]";

type Replacement = string | ((match: string, ...groups: string[]) => string);

export interface SecretRule {
  /** What the rule finds. */
  readonly name: string;
  /** Global; run in table order, each over the output of the one before. */
  readonly pattern: RegExp;
  readonly replacement: Replacement;
}

/** Upper-case environment names: a later `_` segment ending in KEY, starting with SECRET, or TOKEN/PASSWORD/PASSWD/PWD. */
const SECRET_ENV_SEGMENT = /KEY$|^SECRET|^TOKEN$|^PASSWORD$|^PASSWD$|^PWD$/;
/** Other names (`db_password`, `clientSecret`): a later segment that is one of these words … */
const SECRET_WORDS: ReadonlySet<string> = new Set(["secret", "secrets", "password", "passwd", "pwd", "token"]);
/** … or a name ending in one of these pairs (`stripe_api_key`, `signingKey`). `sort_key` is no secret. */
const SECRET_PAIRS: ReadonlySet<string> = new Set([
  "api_key",
  "secret_key",
  "private_key",
  "access_key",
  "account_key",
  "signing_key",
  "encryption_key",
  "master_key",
]);

const MORE_THAN_ONE_WORD = /_|[a-z0-9][A-Z]/;
const MAX_NAME_CHARS = 128;

/** Whether an assigned name (`OPENAI_API_KEY`, `db_password`, `clientSecret`) names a secret. */
export function isSecretName(whole: string): boolean {
  // A name's last words decide; a hostile name of a megabyte is judged by its tail.
  const name = whole.length > MAX_NAME_CHARS ? whole.slice(-MAX_NAME_CHARS) : whole;
  if (name === name.toUpperCase()) {
    return name
      .split("_")
      .slice(1)
      .some((segment) => SECRET_ENV_SEGMENT.test(segment));
  }
  // One word (`token`, `password`) is the pair rule's to judge; most assigned names are one word.
  if (!MORE_THAN_ONE_WORD.test(name)) return false;
  const segments = name.split(/_|(?<=[a-z0-9])(?=[A-Z])/).map((segment) => segment.toLowerCase());
  return (
    segments.slice(1).some((segment) => SECRET_WORDS.has(segment)) ||
    SECRET_PAIRS.has(`${segments.at(-2)}_${segments.at(-1)}`)
  );
}

/** Object keys whose values are secrets whatever they look like. */
export const SECRET_KEY =
  /^(authorization|proxy-authorization|x-api-key|api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|id[_-]?token|token|secret|client[_-]?secret|password|passwd|pwd|private[_-]?key)$/i;

/** A value as it follows `=` or `:`: quoted (whole, with its quotes kept) or up to a separator. */
const VALUE = String.raw`("[^"\n]*"|'[^'\n]*'|["']?[^\s"'&,;]+)`;

/** The value replaced, its quotes kept. */
const redactedValue = (value: string) => {
  const quote = value[0] === '"' || value[0] === "'" ? value[0] : "";
  const closed = quote !== "" && value.length > 1 && value.endsWith(quote);
  return `${quote}${REDACTED}${closed ? quote : ""}`;
};

export const SECRET_RULES: ReadonlyArray<SecretRule> = [
  {
    // First, so no token rule half-matches a key's body. A block without its END line runs to the end.
    name: "PEM private key block (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP)",
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    replacement: REDACTED,
  },
  {
    // Before the key shapes, so `OPENAI_API_KEY=sk-…` keeps its name. The name is matched whole and
    // checked apart, so the pattern stays linear on long runs of words.
    name: "assignment to a secret name: `*_KEY=`, `*_SECRET=`, `*_TOKEN=`, `*_PASSWORD=`, `db_password: `, `clientSecret: `",
    // Only names of two words or more (`a_b`, `aB`) reach the check: one word is never a secret
    // name here. The lookahead says so before the name is matched whole, so the pattern never
    // backtracks from one hump of a long camelCase word to the next.
    pattern: new RegExp(
      String.raw`\b(?=[A-Za-z0-9]*(?:_|[a-z0-9][A-Z]))([A-Za-z][A-Za-z0-9_]*)(\s*[=:]\s*)${VALUE}`,
      "g",
    ),
    replacement: (match, name = "", separator = "", value = "") =>
      isSecretName(name) ? `${name}${separator}${redactedValue(value)}` : match,
  },
  {
    name: 'JSON text field with a secret name: `"private_key": "…"`, `"client_secret": "…"`',
    pattern: /"([A-Za-z][A-Za-z0-9_-]*)"(\s*:\s*)"(?:[^"\\\n]|\\.)*"/g,
    replacement: (match, name = "", separator = "") =>
      SECRET_KEY.test(name) || isSecretName(name) ? `"${name}"${separator}"${REDACTED}"` : match,
  },
  {
    // Distinctive prefixes are found wherever they are glued (`call_sk-proj-…`, `xsk-ant-…`).
    name: "OpenAI / Anthropic key: `sk-proj-`, `sk-ant-`, `sk-svcacct-`, `sk-admin-`",
    pattern: /(?:sk-proj|sk-ant|sk-svcacct|sk-admin)-[A-Za-z0-9_-]{16,}/g,
    replacement: REDACTED,
  },
  {
    // The generic `sk-` only where no letter or digit precedes it (`task-…` is not a key).
    name: "`sk-`, `rk-`, `pk-` key (OpenAI legacy, DeepSeek, Moonshot …)",
    pattern: /(?<![A-Za-z0-9])(sk|rk|pk)-(?:[A-Za-z0-9_-]+-)?[A-Za-z0-9_-]{16,}/g,
    replacement: REDACTED,
  },
  {
    name: "Stripe secret and restricted keys `sk_live_`, `sk_test_`, `rk_live_`, `rk_test_`; webhook secret `whsec_`",
    pattern: /(?<![A-Za-z0-9])(?:[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{16,})/g,
    replacement: REDACTED,
  },
  {
    name: "Google API key `AIza…`, OAuth client secret `GOCSPX-…`, OAuth access token `ya29.…`",
    pattern: /AIza[0-9A-Za-z_-]{35}|GOCSPX-[A-Za-z0-9_-]{20,}|ya29\.[0-9A-Za-z_-]{20,}/g,
    replacement: REDACTED,
  },
  {
    name: "GitHub tokens `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`; GitLab `glpat-`",
    pattern: /gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}/g,
    replacement: REDACTED,
  },
  {
    name: "Slack tokens `xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxe-`, `xoxs-`, `xoxo-`, `xapp-`",
    pattern: /xox[abeoprs]-[A-Za-z0-9-]{10,}|xapp-[0-9]+-[A-Za-z0-9-]{10,}/g,
    replacement: REDACTED,
  },
  {
    name: "Slack incoming-webhook URL (the path is the secret)",
    pattern: /(hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9/_-]+/g,
    replacement: `$1${REDACTED}`,
  },
  {
    name: "AWS access key id `AKIA…`, temporary `ASIA…`",
    pattern: /(?:AKIA|ASIA)[0-9A-Z]{16}/g,
    replacement: REDACTED,
  },
  {
    name: "npm `npm_…`, Hugging Face `hf_…`, SendGrid `SG.….…` tokens",
    pattern: /(?<![A-Za-z0-9])(?:npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,})|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g,
    replacement: REDACTED,
  },
  {
    // Header `eyJ…` (a JSON object), payload, signature (empty for an unsigned token).
    name: "JSON Web Token `eyJ….….…`",
    // The dots are optional to the pattern and checked apart: a run of `eyJ…` without them is
    // passed over once instead of once per `eyJ` in it.
    pattern: /eyJ[A-Za-z0-9_-]{8,}(\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)?/g,
    replacement: (match, rest) => (rest ? REDACTED : match),
  },
  {
    name: "`Bearer …` / `Basic …` credentials",
    pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
    replacement: `$1 ${REDACTED}`,
  },
  {
    // Before the pair rules: `https://x-access-token:…@github.com` keeps its host.
    name: "password in a URL `scheme://user:password@host` (Postgres, Redis, AMQP, Git over HTTPS …)",
    pattern: /(:\/\/[^\s:/@?#"'<>]*):[^\s/?#"'<>]+@/g,
    replacement: `$1:${REDACTED}@`,
  },
  {
    name: "`Authorization:` header of any other scheme (`token …`, `Digest …`, `AWS4-HMAC-SHA256 …`)",
    pattern: /\b((?:proxy-)?authorization)(\s*:\s*)(?:([A-Za-z][A-Za-z0-9-]*)\s+)?([^\s"',;]+)/gi,
    replacement: (match, name = "", separator = "", scheme = "", value = "") =>
      value === REDACTED ? match : `${name}${separator}${scheme ? `${scheme} ` : ""}${REDACTED}`,
  },
  {
    name: "`api_key=`, `token:`, `secret=`, `password=`, `client_secret=` … pairs (any case)",
    pattern:
      /\b(x-api-key|api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|auth[_-]?token|session[_-]?token|token|client[_-]?secret|secret|password|passwd|pwd)(\s*[=:]\s*)("?)([^\s"'&,;]+)/gi,
    // A value an earlier rule already replaced keeps what follows it (the host after a URL's `@`).
    replacement: (match, name = "", separator = "", quote = "", value = "") =>
      value.startsWith(REDACTED) ? match : `${name}${separator}${quote}${REDACTED}`,
  },
  {
    name: "Azure connection string `AccountKey=`, `SharedAccessKey=`, `SharedAccessSignature=`, `AccessKey=`",
    pattern: /\b(AccountKey|SharedAccessKey|SharedAccessSignature|AccessKey)(\s*=\s*)[^;\s"']+/gi,
    replacement: `$1$2${REDACTED}`,
  },
  {
    name: "signed-URL query: Azure SAS `sig=`, S3 `X-Amz-Signature=` / `X-Amz-Credential=`, GCS `X-Goog-Signature=`",
    pattern:
      /([?&;](?:sig|signature|x-amz-signature|x-amz-credential|x-goog-signature|x-goog-credential)=)[^&\s"'#]+/gi,
    replacement: `$1${REDACTED}`,
  },
];

/**
 * Text none of whose rules could match holds one of none of these (a superset: a hint is no
 * finding, only a reason to run the rules). Most payloads show none, and skip the rules.
 */
const HINT_ANY_CASE =
  /-----BEGIN|[spr]k[-_]|whsec_|\b(?:bearer|basic)\s|authorization|x-api-key|api[_-]?key|token|secret|passw|pwd|private|[a-z0-9]key\s*[=:]|_[a-z0-9]*key|accountkey|sharedaccess|accesskey|gh[pousr]_|github_pat_|glpat-|xox[abeoprs]-|xapp-|hooks\.slack\.com|npm_|hf_|[?&;](?:sig|signature|x-amz-|x-goog-)|:\/\/[^\s/]*@/i;
const HINT_EXACT_CASE = /AKIA|ASIA|AIza|GOCSPX-|ya29\.|SG\.|eyJ/;

export const mayHoldSecretText = (text: string): boolean => HINT_ANY_CASE.test(text) || HINT_EXACT_CASE.test(text);

/** Runs every rule over the text, in table order. */
export function redactText(text: string): string {
  let out = text;
  for (const { pattern, replacement } of SECRET_RULES) {
    out = typeof replacement === "string" ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  }
  return out;
}
