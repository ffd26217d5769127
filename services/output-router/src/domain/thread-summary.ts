/**
 * An extractive summary of a team thread — no model: who took part, the
 * first sentence of each post as its key point, action items (lines such as
 * `TODO: …`, `- [ ] …`, `Action: …`, `@name will …`) and decisions
 * (`Decided: …`, `Decision: …`, `We agreed …`). `focus` puts one of them
 * first in the summary text; `maxLength` cuts the text.
 */
export interface ThreadPost {
  author: string;
  content: string;
  createdAt: Date;
}

export type ThreadFocus = 'decisions' | 'action_items' | 'key_points';

export interface ThreadSummary {
  summary: string;
  key_points: string[];
  action_items: string[];
  decisions: string[];
  participants: string[];
  post_count: number;
  method: 'extractive';
}

const ACTION = /^\s*(?:[-*]\s*)?(?:\[ \]\s*|todo:?\s*|action(?:\s+item)?:\s*|ai:\s*)(.+)$/i;
const WILL = /^\s*(?:[-*]\s*)?(@\w[\w.-]*\s+will\s+.+)$/i;
const DECISION = /^\s*(?:[-*]\s*)?(?:decided:?\s*|decision:?\s*|we\s+(?:agreed|decided)\s+(?:to\s+|that\s+)?)(.+)$/i;

function firstSentence(text: string): string {
  const clean = text.replace(/[#>*_`]+/g, ' ').replace(/\s+/g, ' ').trim();
  const m = /^(.{1,240}?[.!?])(\s|$)/.exec(clean);
  return (m ? m[1]! : clean.slice(0, 240)).trim();
}

const unique = (xs: string[]) => [...new Set(xs.filter(Boolean))];

export function summarizeThread(posts: ThreadPost[], opts: { maxLength?: number; focus?: ThreadFocus } = {}): ThreadSummary {
  const ordered = [...posts].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  const participants = unique(ordered.map((p) => p.author));
  const actionItems: string[] = [];
  const decisions: string[] = [];
  for (const p of ordered)
    for (const line of p.content.split(/\r?\n/)) {
      // A decision may follow another sentence on its line.
      const found = line.split(/(?<=[.!?])\s+/).map((x) => DECISION.exec(x)).filter((m) => m !== null);
      for (const d of found) decisions.push(d[1]!.trim());
      const a = ACTION.exec(line) ?? WILL.exec(line);
      if (a && !found.length) actionItems.push(a[1]!.trim());
    }
  const keyPoints = unique(ordered.map((p) => firstSentence(p.content))).slice(0, 10);
  const parts: Record<ThreadFocus, string> = {
    key_points: keyPoints.length ? `Key points: ${keyPoints.join(' ')}` : '',
    decisions: decisions.length ? `Decisions: ${unique(decisions).join('; ')}.` : '',
    action_items: actionItems.length ? `Action items: ${unique(actionItems).join('; ')}.` : '',
  };
  const order: ThreadFocus[] = opts.focus
    ? [opts.focus, ...(['key_points', 'decisions', 'action_items'] as ThreadFocus[]).filter((f) => f !== opts.focus)]
    : ['key_points', 'decisions', 'action_items'];
  const span = ordered.length
    ? `${ordered.length} post${ordered.length === 1 ? '' : 's'} by ${participants.join(', ')} (${ordered[0]!.createdAt.toISOString().slice(0, 10)} to ${ordered.at(-1)!.createdAt.toISOString().slice(0, 10)}).`
    : 'The thread has no posts.';
  let summary = [span, ...order.map((f) => parts[f])].filter(Boolean).join(' ');
  if (opts.maxLength !== undefined && summary.length > opts.maxLength) summary = `${summary.slice(0, Math.max(1, opts.maxLength - 1)).trimEnd()}…`;
  return {
    summary,
    key_points: keyPoints,
    action_items: unique(actionItems),
    decisions: unique(decisions),
    participants,
    post_count: ordered.length,
    method: 'extractive',
  };
}
