import type { MemoryKind, MemoryProvenance } from "../../domain/index.js";

/** A memory the consolidator would like to keep, before the gate decides its status. */
export interface MemoryCandidate {
  readonly content: string;
  readonly kind: MemoryKind;
  readonly provenance: MemoryProvenance;
  readonly sourceRef: string;
  readonly evidence: Readonly<Record<string, string | number | boolean | null>>;
  /** True only for the whitelist: explicit user preferences/decisions and receipt-backed facts. */
  readonly whitelisted: boolean;
  readonly confidence: number;
}

/**
 * Explicit statements a user makes about themselves or a decision, English and Chinese. These
 * extract memory candidates only; they never decide a contract or run a tool.
 */
const PREFERENCE = [
  /\b(?:i prefer|i'd prefer|i like|i don't like|i dislike|please always|please never|always use|never use|my preference is|remember that)\b.{3,}/i,
  /(?:我喜欢|我偏好|我更喜欢|以后请|请记住|记住).{2,}/,
];
const DECISION = [
  /\b(?:we decided|i decided|we'll go with|let's go with|decision:)\b.{3,}/i,
  /(?:我们决定|我决定|决定采用).{2,}/,
];

const URL = /\bhttps?:\/\/[^\s<>"'`)\]]+/gi;
const DOMAIN =
  /\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|org|net|io|dev|ai|app|cloud|cn|co|uk|de|jp|info|me|xyz)\b/gi;
const COMMAND = /`([^`\n]{2,200})`/g;
const PATH = /(?:^|\s)((?:\.{1,2}\/|\/)[\w.\-/]+)/g;

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s*|\n+/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

/** A question states nothing ("Should I prefer tabs?", "你记住了吗？"). */
const isQuestion = (sentence: string) => /[?？]$/.test(sentence);

export function userStatements(text: string, sourceRef: string): MemoryCandidate[] {
  const out: MemoryCandidate[] = [];
  for (const sentence of sentences(text)) {
    if (isQuestion(sentence)) continue;
    if (DECISION.some((pattern) => pattern.test(sentence))) {
      out.push({
        content: sentence,
        kind: "decision",
        provenance: "user_decision",
        sourceRef,
        evidence: {},
        whitelisted: true,
        confidence: 0.9,
      });
    } else if (PREFERENCE.some((pattern) => pattern.test(sentence))) {
      out.push({
        content: sentence,
        kind: "preference",
        provenance: "user_stated",
        sourceRef,
        evidence: {},
        whitelisted: true,
        confidence: 0.9,
      });
    }
  }
  return out;
}

/** URLs, domains, paths and commands in a text: never active on their own (pending candidates). */
export function addressesIn(text: string, provenance: MemoryProvenance, sourceRef: string): MemoryCandidate[] {
  const found = new Map<string, MemoryKind>();
  for (const match of text.matchAll(URL)) found.set(match[0].replace(/[.,;:]+$/, ""), "url");
  const urls = [...found.keys()];
  for (const match of text.matchAll(DOMAIN)) {
    const domain = match[0].toLowerCase();
    if (!urls.some((url) => url.toLowerCase().includes(domain))) found.set(domain, "domain");
  }
  for (const match of text.matchAll(COMMAND)) found.set(match[1]!.trim(), "command");
  for (const match of text.matchAll(PATH)) {
    // A sentence's closing punctuation is not part of the path ("… is /etc/hosts.").
    const path = match[1]!.replace(/[.,;:]+$/, "");
    if (path.length > 1 && !urls.some((url) => url.includes(path))) found.set(path, "path");
  }
  return [...found].map(([content, kind]) => ({
    content,
    kind,
    provenance,
    sourceRef,
    evidence: {},
    whitelisted: false,
    confidence: provenance === "model_inference" ? 0.3 : 0.6,
  }));
}
