/**
 * @mentions in chat: a message that starts with `@handle` is addressed to
 * that agent, and the rest of the message is its query. Only the start of
 * the message counts — `mail me at a@b.org` mentions nobody — and the
 * handle ends at whitespace or a `:` / `,` right after it.
 */
import { editDistance } from '@af/plan';
import { HANDLE_MAX } from './profile.schema.js';

export type MentionParse =
  | { mentioned: false; query: string }
  /** `handle` is lower-cased (handles are); `query` is the message without the mention. */
  | { mentioned: true; handle: string; query: string };

const MENTION = /^\s*@([A-Za-z0-9][A-Za-z0-9_-]*)(?=$|[\s:,])[:,]?\s*/;

export function parseMention(message: string): MentionParse {
  const m = MENTION.exec(message);
  if (!m || m[1]!.length > HANDLE_MAX) return { mentioned: false, query: message.trim() };
  return { mentioned: true, handle: m[1]!.toLowerCase(), query: message.slice(m[0].length).trim() };
}

/** An agent the caller may mention. */
export interface MentionCandidate {
  profileId: string;
  handle: string;
  /** `own`, or shared with the caller through `teamId`. */
  source: 'own' | 'team';
  teamId?: string;
  /** When it was shared (team candidates); the earliest share wins a tie. */
  sharedAt?: number;
}

export type HandleResolution = { found: true; candidate: MentionCandidate } | { found: false; close: string[] };

/**
 * `handle` among the caller's candidates: their own agent first, then one
 * shared with one of their teams (the earliest share when several teams
 * share different agents under one handle). When none has it, the handles
 * closest to it, nearest first.
 */
export function resolveHandle(handle: string, candidates: readonly MentionCandidate[]): HandleResolution {
  const wanted = handle.trim().replace(/^@/, '').toLowerCase();
  const own = candidates.find((c) => c.source === 'own' && c.handle === wanted);
  if (own) return { found: true, candidate: own };
  const shared = candidates
    .filter((c) => c.source === 'team' && c.handle === wanted)
    .sort((a, b) => (a.sharedAt ?? 0) - (b.sharedAt ?? 0) || a.profileId.localeCompare(b.profileId));
  if (shared[0]) return { found: true, candidate: shared[0] };
  return { found: false, close: closeHandles(wanted, candidates.map((c) => c.handle)) };
}

/**
 * Handles within a few edits of `handle` (a third of its length, at least
 * 2), or that start with it / it starts with (at least 3 characters), nearest
 * first, at most `limit`.
 */
export function closeHandles(handle: string, handles: readonly string[], limit = 5): string[] {
  const max = Math.max(2, Math.floor(handle.length / 3));
  const scored = new Map<string, number>();
  for (const h of new Set(handles)) {
    if (h === handle) continue;
    const prefix = Math.min(h.length, handle.length) >= 3 && (h.startsWith(handle) || handle.startsWith(h));
    const d = editDistance(handle, h, max + 1);
    if (d <= max) scored.set(h, d);
    else if (prefix) scored.set(h, max);
  }
  return [...scored.entries()].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).slice(0, limit).map(([h]) => h);
}

/** The sentence for an unknown handle, naming the close ones. */
export function unknownHandleMessage(handle: string, close: readonly string[]): string {
  return `no agent '@${handle}' for you${close.length ? `; did you mean ${close.map((h) => `@${h}`).join(', ')}?` : ' (GET /api/agent-factory/available-agents lists the ones you can mention)'}`;
}
