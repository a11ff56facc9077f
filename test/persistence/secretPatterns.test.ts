import { describe, expect, it } from "vitest";
import { redact, redactEverywhere, sanitizePayload } from "../../src/persistence/payloadHygiene.js";
import { isSecretName, REDACTED, redactText } from "../../src/persistence/secretPatterns.js";
import { SECRET_SHAPES } from "../fixtures/secrets.js";

const escaped = (text: string) => JSON.stringify(text).slice(1, -1);

describe("the secret corpus", () => {
  it("holds at least 30 real-world shapes, each with its own secret", () => {
    expect(SECRET_SHAPES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(SECRET_SHAPES.map((entry) => entry.secret)).size).toBe(SECRET_SHAPES.length);
    for (const entry of SECRET_SHAPES) expect(entry.text, entry.shape).toContain(entry.secret);
  });
});

describe.each(SECRET_SHAPES)("redaction of a $shape", ({ text, secret, kept }) => {
  it("removes the secret, marks its place and keeps the text around it", () => {
    const clean = redactText(text);
    expect(clean).not.toContain(secret);
    expect(clean).toContain(REDACTED);
    expect(clean).toContain(kept);
  });

  it("removes it from a payload's JSON, and the shortcut for text without a hint agrees", () => {
    const payload = { output: { stdout: text } };
    expect(JSON.stringify(sanitizePayload(payload))).not.toContain(escaped(secret));
    expect(redact(payload)).toEqual(redactEverywhere(payload));
  });
});

describe("what redaction leaves alone", () => {
  it.each([
    ["a sha256 digest", "output_sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
    ["a run id and a trace id", "run_0f8fad5b-d9cb-469f-a165-70867728950e trace 4bf92f3577b34da6a3ce929d0e0e4736"],
    ["base64 evidence of a JSON document", "evidence eyJzdGF0dXMiOiJvayIsImNvdW50IjozfQ== stored"],
    ["a call id", "call_2_1 call_abc123XYZ tool_use_01A09q90qw90lq917835lq9"],
    ["a URL with a port and no password", "https://example.com:8443/path?q=1 and postgres://db.internal:5432/app"],
    ["a user without a password in a URL", "ssh://git@github.com/acme/app.git"],
    ["a time zone", "Asia/Tokyo, ASIA region, Fantasia"],
    ["ordinary assignments", "sort_key=name max_tokens: 5 token_count=3 NODE_ENV=production"],
    ["a pagination cursor field name in prose", "the signature is valid; authorization succeeded"],
    ["a task id", "task-abcdefghijklmnopqrstuvwxyz desk_test_fixtures_long"],
  ])("%s", (_, text) => {
    expect(redactText(text)).toBe(text);
  });
});

describe("isSecretName", () => {
  it.each([
    "OPENAI_API_KEY",
    "MY_APP_SECRET",
    "GITHUB_TOKEN",
    "db_password",
    "clientSecret",
    "stripe_api_key",
    "signingKey",
  ])("names %s a secret", (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each([
    "NODE_ENV",
    "sort_key",
    "max_tokens",
    "token_count",
    "private_key_id",
    "PASSWORD",
    "secretary",
    "AccountName",
  ])("does not name %s a secret", (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});
