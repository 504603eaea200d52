import { getMetadataStorage } from 'class-validator';

/**
 * The one wording of a refused member, with the known member it most likely misspells:
 * `unknown member; did you mean "resizing"? No other members are allowed`, or without a close name
 * `unknown member; no other members are allowed`. `subject` replaces "unknown member" where the refusal says more
 * (`crop is not a member of fit type "bounds"`).
 */
export function unknownMemberMessage(name: string, known: readonly string[] = [], subject = 'unknown member'): string {
  const suggestion = closestName(name, known);
  return suggestion === undefined
    ? `${subject}; no other members are allowed`
    : `${subject}; did you mean "${suggestion}"? No other members are allowed`;
}

/**
 * The known name `name` most likely misspells: the one at the smallest edit distance (letters inserted, removed,
 * replaced, or two neighbours swapped; case ignored), provided that distance is at most a third of the longer
 * name's length (`resizng` -> `resizing`, `widht` -> `width`, `colour` -> `color`; `x` and `bogus` get nothing).
 * Ties go to the earlier name in `known`. Undefined when none is that close.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  const lower = name.toLowerCase();
  for (const candidate of known) {
    if (candidate === name) continue;
    const limit = Math.floor(Math.max(name.length, candidate.length) / 3);
    // Names whose lengths differ by more than the limit cannot be close: skipped before any work, so that a
    // hostile body's long member names cost nothing here.
    if (Math.abs(name.length - candidate.length) > limit) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps, 1 each. */
export function editDistance(a: string, b: string): number {
  // Three rows of the (a.length + 1) x (b.length + 1) table: the swap looks two rows back.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2] + 1);
      current.push(value);
    }
    [before, previous] = [previous, current];
  }
  return previous[b.length];
}

const membersByClass = new WeakMap<object, readonly string[]>();

/**
 * The members a class declares to class-validator (any decorator, `@Allow` and `@IsOptional` included): exactly
 * the names its whitelist lets through, in declaration order. Empty for a plain object or a class without rules.
 */
export function declaredMembers(cls: object | undefined): readonly string[] {
  if (typeof cls !== 'function') return [];
  let members = membersByClass.get(cls);
  if (!members) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false);
    members = [...new Set(metadata.map((entry) => entry.propertyName))];
    membersByClass.set(cls, members);
  }
  return members;
}
