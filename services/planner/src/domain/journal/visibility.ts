/**
 * Which journal entries of a profile a caller sees. The owner sees every
 * entry. A member of a team the profile is shared with sees, per the share's
 * `journal_visibility`: `own_only` — the runs they invoked; `own_and_scheduled`
 * (default) — those and the scheduled / background / monitor runs; `full` —
 * every entry. Anyone else sees none (and the profile is NOT_FOUND to them).
 */
import { sharesFor, type Caller, type JournalVisibility, type TeamShare } from '../profiles/sharing.js';

export type JournalScope = { all: true } | { all: false; invokedBy: string; unattendedToo: boolean } | { none: true };

const ORDER: readonly JournalVisibility[] = ['own_only', 'own_and_scheduled', 'full'];
export const UNATTENDED_CONTEXTS = ['scheduled', 'background', 'monitor'] as const;

export function journalScope(caller: Caller, ownerUserId: string, shares: readonly TeamShare[]): JournalScope {
  if (caller.userId && caller.userId === ownerUserId) return { all: true };
  const mine = sharesFor(caller, shares);
  if (!mine.length) return { none: true };
  // Shared through several teams: the widest visibility among them.
  const widest = mine.map((s) => s.journalVisibility).sort((a, b) => ORDER.indexOf(b) - ORDER.indexOf(a))[0]!;
  if (widest === 'full') return { all: true };
  return { all: false, invokedBy: caller.userId, unattendedToo: widest === 'own_and_scheduled' };
}

export function sees(scope: JournalScope, entry: { invokedBy: string; runContext: string }): boolean {
  if ('none' in scope) return false;
  if (scope.all) return true;
  return entry.invokedBy === scope.invokedBy || (scope.unattendedToo && (UNATTENDED_CONTEXTS as readonly string[]).includes(entry.runContext));
}
