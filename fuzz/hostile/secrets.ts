/**
 * Secrets planted in hostile responses, in the shapes agentloop's redaction claims to handle
 * (src/persistence/payloadHygiene.ts): OpenAI-style `sk-proj-…` keys, AWS `AKIA…` ids, GitHub
 * `ghp_…` tokens, Slack `xoxb-…` tokens, `NAME_API_KEY=…` / `NAME_SECRET=…` environment lines,
 * `Bearer …` headers, `password: …` pairs and PEM private-key blocks. Every value is unique to its
 * case (the case number is part of it, and a per-suite random salt), so a hit names its case.
 * `needle` is what must never be stored; `fragment` is its first half (a partial leak).
 */
import { randomBytes } from "node:crypto";

export interface PlantedSecret {
  readonly caseId: string;
  readonly shape: string;
  /** The text as planted in the response. */
  readonly text: string;
  /** The secret value: it must appear nowhere in the database. */
  readonly needle: string;
  /** Its first half: finding it (without the whole) is a partial leak. */
  readonly fragment: string;
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

function randomOf(alphabet: string, length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const byte of bytes) out += alphabet[byte % alphabet.length];
  return out;
}

const fragmentOf = (needle: string) => needle.slice(0, Math.ceil(needle.length / 2));

/** Mints the secrets of one case and remembers them. */
export class SecretMint {
  readonly planted: PlantedSecret[] = [];

  constructor(
    readonly caseId: string,
    private readonly caseNumber: number,
  ) {}

  /** The case's tag inside a secret: `Q<number>Q`, letters and digits only. */
  private tag(upper = false): string {
    const tag = `Q${String(this.caseNumber).padStart(3, "0")}Q`;
    return upper ? tag.toUpperCase() : tag;
  }

  private plant(shape: string, text: string, needle: string): string {
    this.planted.push({ caseId: this.caseId, shape, text, needle, fragment: fragmentOf(needle) });
    return text;
  }

  /** `sk-proj-…` (OpenAI project key). */
  openai(): string {
    const key = `sk-proj-${this.tag()}${randomOf(ALNUM, 40)}`;
    return this.plant("openai_key", key, key);
  }

  /** `AKIA` + 16 upper-case letters/digits (AWS access key id). */
  aws(): string {
    const key = `AKIA${this.tag(true)}${randomOf(UPPER, 11)}`;
    return this.plant("aws_key_id", key, key);
  }

  /** `ghp_…` (GitHub personal access token). */
  github(): string {
    const key = `ghp_${this.tag()}${randomOf(ALNUM, 31)}`;
    return this.plant("github_token", key, key);
  }

  /** `xoxb-…` (Slack bot token). */
  slack(): string {
    const key = `xoxb-${this.tag()}-${randomOf(ALNUM, 12)}-${randomOf(ALNUM, 24)}`;
    return this.plant("slack_token", key, key);
  }

  /** `NAME_API_KEY=value` (an environment line); the value is the secret. */
  envKey(name = "STRIPE_API_KEY"): string {
    const value = `v${this.tag()}${randomOf(ALNUM, 28)}`;
    return this.plant("env_key", `${name}=${value}`, value);
  }

  /** `NAME_SECRET=value`; the value is the secret. */
  envSecret(name = "DATABASE_SECRET"): string {
    const value = `s${this.tag()}${randomOf(ALNUM, 28)}`;
    return this.plant("env_secret", `${name}=${value}`, value);
  }

  /** `Authorization: Bearer token`; the token is the secret. */
  bearer(): string {
    const token = `b${this.tag()}${randomOf(ALNUM, 36)}`;
    return this.plant("bearer", `Authorization: Bearer ${token}`, token);
  }

  /** `password: value`; the value is the secret. */
  password(): string {
    const value = `p${this.tag()}${randomOf(ALNUM, 20)}`;
    return this.plant("password", `password: ${value}`, value);
  }

  /** A PEM private-key block; its body line is the secret. */
  privateKey(): string {
    const body = `MIIE${this.tag()}${randomOf(ALNUM, 56)}`;
    return this.plant("private_key", `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----`, body);
  }

  /** One of every shape, as lines of text. */
  all(): string {
    return [
      this.openai(),
      this.aws(),
      this.github(),
      this.slack(),
      this.envKey(),
      this.envSecret(),
      this.bearer(),
      this.password(),
      this.privateKey(),
    ].join("\n");
  }

  /** A key-shaped identifier (call ids, tool names): letters, digits, `_`, `-` only. */
  keyShaped(): string {
    return this.openai();
  }
}
