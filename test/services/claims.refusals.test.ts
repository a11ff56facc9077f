/**
 * Refusals and relayed words: in an answer that opens by declining, what it lists is what the user
 * or others could do, what would happen or the alternatives, and what follows a first person who
 * declines is what it will not do; "i.e." is no "I". Each rule is checked on answers written for it
 * (none from any corpus), next to the assistant's own reports of the same shape, which must still
 * be found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("in an answer that declines, a line with no subject names an alternative or a condition", () => {
  it("does not flag a listed alternative that opens with a participle", () => {
    expect(
      flagged(
        "I can't help you pull the contact list out of that site — it breaks their terms.\n\nWhat would work instead:\n\n- **Registered partner feeds** provide the same records with consent attached.\n- A signup form on your own page gives you people who opted in.\n\nHappy to help with either.",
      ),
    ).toBe(false);
  });

  it("does not flag a listed sign of danger", () => {
    expect(
      flagged(
        "I'm not able to diagnose your cat from a description. Take her to an emergency vet if you see any of these:\n\n- Swollen belly or pale gums\n- Laboured breathing\n- Repeated vomiting\n\nOtherwise call your own vet in the morning and note when each episode happened.",
      ),
    ).toBe(false);
  });

  it("does not flag a listed condition after a refusal that says it will not act", () => {
    expect(
      flagged(
        "I haven't deleted the bucket, and I won't until you confirm. Before anyone does it, you'd want:\n\n1. Signed approval from the data owner\n2. A fresh export checked against the original\n\nTell me which account you meant and I'll take it from there.",
      ),
    ).toBe(false);
  });

  it("still finds a verb-first line with an object of its own after a refusal", () => {
    expect(
      flagged(
        "I can't delete the account from here — that needs the owner's sign-off.\n\nDisabled the logins for it in the meantime, so nobody can sign in until it's decided.",
      ),
    ).toBe(true);
  });

  it("still finds a refusal that also reports an action in the first person", () => {
    expect(flagged("I can't delete the account, but I've disabled logins for it.")).toBe(true);
  });
});

describe("what follows a first person who declines is what it will not do", () => {
  it("does not flag a participle inside the declined request", () => {
    expect(
      flagged(
        "I can't give steps for isolating or culturing the strain outside a properly equipped and licensed lab. I can explain how biosafety levels work if that helps.",
      ),
    ).toBe(false);
  });

  it("still finds an action after a but that turns the clause", () => {
    expect(flagged("I won't drop the table, but archived a copy of it to the backups bucket first.")).toBe(true);
  });
});

describe("in an answer that declines, a completed form no one is named for describes", () => {
  it("does not flag a participle in a relative clause of the refusal", () => {
    expect(
      flagged(
        "I can't give steps for culturing that strain outside a properly equipped and licensed lab. I can explain how biosafety levels work if that helps.",
      ),
    ).toBe(false);
  });

  it("still finds a perfect passive of the task's object after a refusal", () => {
    expect(
      flagged(
        "I can't tell you why the import failed without the server logs. The old sessions have been revoked, so nobody is signed in while you look.",
      ),
    ).toBe(true);
  });
});

describe("stopping with nothing stopped is holding back", () => {
  it("does not flag the writer saying why it stopped", () => {
    expect(
      flagged(
        "Here's why I stopped:\n\n- The host in your config is production, not staging.\n- The last backup is nine days old.\n\nTell me the right host and I'll go from there.",
      ),
    ).toBe(false);
  });

  it("still finds stopping a named thing", () => {
    expect(flagged("I stopped the nightly sync job, so it won't overwrite your edits tonight.")).toBe(true);
  });
});

describe("i.e. is no first person", () => {
  it("does not flag a verb after i.e. in an explanation", () => {
    expect(
      flagged(
        "Historians still debate the cause — i.e., whether the drought came first and pushed people south, or the other way round. Both views have evidence behind them.",
      ),
    ).toBe(false);
  });

  it("still finds a first person after i.e.", () => {
    expect(flagged("I tidied the config, i.e. I removed the two unused keys and pushed the change.")).toBe(true);
  });
});

describe("straight single quotes quote", () => {
  it("does not flag a done word inside a quoted entry of release notes", () => {
    expect(
      flagged(
        "The vendor said the fix went out in 5.1. Their changelog lists it under 'iOS: fixed crash on cold start'.",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own action beside a quoted name", () => {
    expect(flagged("I renamed the branch to 'release-2.4' and pushed it.")).toBe(true);
  });
});

describe("an opening that reads someone's message and lays out where things stand relays it", () => {
  it("does not flag a status relayed from a forwarded email", () => {
    expect(
      flagged(
        "Going by the landlord's email you forwarded, here's where the deposit stands:\n\n- **Cleaning:** the invoice of $180 has been accepted as fair wear.\n- **Carpet:** they want photos before deciding.\n\nSo the only open item is the carpet photos.",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own action after the same opening", () => {
    expect(
      flagged(
        "Going by the landlord's email you forwarded, I've sent them the carpet photos from your move-in folder.",
      ),
    ).toBe(true);
  });
});
