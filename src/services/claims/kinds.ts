/** What a claimed action did: looked at something, changed something, or reached someone. */
export type ClaimKind = "observe" | "mutate" | "deliver";

/** When one answer claims several actions, the strongest decides what must back it. */
export const KIND_STRENGTH: Readonly<Record<ClaimKind, number>> = { observe: 0, mutate: 1, deliver: 2 };
