/**
 * @mention autocomplete, pure: where the mention being typed starts, which
 * agents fit it, and the text once one is picked.
 */

export interface MentionAgent {
  agent_profile_id: string;
  handle: string;
  name: string;
  description?: string | null;
  source: string;
  team_name?: string | null;
}

/** The mention the caret is in (`@` then handle characters up to the caret), or null. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const m = /(^|\s)@([A-Za-z0-9_-]*)$/.exec(before);
  if (!m) return null;
  return { start: caret - m[2]!.length - 1, query: m[2]! };
}

/** Agents whose handle starts with the query first, then those whose handle or name contains it; at most `limit`. */
export function matchAgents(agents: MentionAgent[], query: string, limit = 8): MentionAgent[] {
  const q = query.toLowerCase();
  const starts = agents.filter((a) => a.handle.toLowerCase().startsWith(q));
  const contains = agents.filter((a) => !starts.includes(a) && (a.handle.toLowerCase().includes(q) || a.name.toLowerCase().includes(q)));
  return [...starts, ...contains].slice(0, limit);
}

/** The text with the mention at `start…caret` replaced by `@handle `, and where the caret goes. */
export function applyMention(text: string, start: number, caret: number, handle: string): { text: string; caret: number } {
  const inserted = `@${handle} `;
  const rest = text.slice(caret).replace(/^[A-Za-z0-9_-]*\s?/, '');
  return { text: text.slice(0, start) + inserted + rest, caret: start + inserted.length };
}
