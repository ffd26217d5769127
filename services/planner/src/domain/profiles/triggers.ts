/**
 * Playbook trigger matching (playbook `triggers`): which of a profile's
 * playbooks a message asks for. `keyword`: the pattern appears in the
 * message, case-insensitive. `regex`: the pattern matches, case-insensitive.
 * `semantic` needs an embedding model (TRIGGER_EMBEDDER): the message and the
 * pattern match when their embeddings' cosine similarity reaches the
 * configured threshold (`prepareSemantic` embeds the message once per call and
 * decides every semantic pattern; infra/semantic-triggers.ts caches pattern
 * vectors). Without a model, or when the embedding call fails, the pattern is
 * matched as a keyword and the answer says so.
 */

export type TriggerType = 'keyword' | 'regex' | 'semantic';

export interface Trigger {
  pattern: string;
  type: TriggerType;
  priority: number;
}

export interface TriggeredPlaybook {
  playbookId: string;
  triggers: readonly Trigger[];
  /** The attachment's priority (agent_skills.priority): breaks ties between equal triggers. */
  priority?: number;
}

export interface TriggerMatch {
  playbookId: string;
  trigger: Trigger;
  /** How the trigger was matched (`keyword` for a semantic trigger without a model). */
  matchedAs: 'keyword' | 'regex' | 'semantic';
}

export interface TriggerOutcome {
  /** Every playbook that matched, best first (one entry per playbook: its best trigger). */
  matches: TriggerMatch[];
  notes: string[];
}

/** A semantic matcher, when an embedding model is configured: true when `query` means `pattern`. */
export type SemanticMatcher = (query: string, pattern: string) => boolean;
/** A matcher, or why there is none (semantic triggers then match as keywords and the reason is noted). */
export type SemanticOption = SemanticMatcher | { unavailable: string };

/** An embedding model deciding semantic triggers: cosine similarity of the message to each pattern. */
export interface SemanticModel {
  /** The model's name, said in the notes (e.g. `openai:text-embedding-3-small`). */
  readonly name: string;
  /** Cosine similarity a pattern needs to match. */
  readonly threshold: number;
  similarities(query: string, patterns: readonly string[]): Promise<number[]>;
}

export const SEMANTIC_UNAVAILABLE = 'semantic matching unavailable: no embedding model configured';
/** Longer messages are matched on their first part only: a regex's cost grows with its input. */
export const MAX_MATCH_CHARS = 4_000;

const TYPE_RANK: Record<TriggerMatch['matchedAs'], number> = { regex: 0, keyword: 1, semantic: 2 };

/**
 * Orders matches by trigger priority (higher first), then the playbook's
 * attachment priority, then exact kinds before semantic, then the longer
 * pattern (more specific), then playbook id — so the outcome never depends
 * on storage order.
 */
export function matchTriggers(query: string, playbooks: readonly TriggeredPlaybook[], semantic?: SemanticOption): TriggerOutcome {
  const text = query.slice(0, MAX_MATCH_CHARS);
  const lower = text.toLowerCase();
  const notes = new Set<string>();
  const best = new Map<string, { match: TriggerMatch; attach: number }>();
  for (const pb of playbooks) {
    for (const trigger of pb.triggers) {
      const matchedAs = matchOne(text, lower, trigger, semantic, notes);
      if (!matchedAs) continue;
      const candidate = { match: { playbookId: pb.playbookId, trigger, matchedAs }, attach: pb.priority ?? 0 };
      const prev = best.get(pb.playbookId);
      if (!prev || compare(candidate, prev) < 0) best.set(pb.playbookId, candidate);
    }
  }
  return { matches: [...best.values()].sort(compare).map((c) => c.match), notes: [...notes] };
}

function matchOne(text: string, lower: string, t: Trigger, semantic: SemanticOption | undefined, notes: Set<string>): TriggerMatch['matchedAs'] | undefined {
  const pattern = t.pattern.trim();
  if (!pattern) return undefined;
  if (t.type === 'regex') {
    let re: RegExp;
    try {
      re = new RegExp(pattern, 'i');
    } catch {
      notes.add(`trigger /${pattern}/ is not a valid regular expression and was skipped`);
      return undefined;
    }
    return re.test(text) ? 'regex' : undefined;
  }
  if (t.type === 'semantic') {
    if (typeof semantic === 'function') return semantic(text, pattern) ? 'semantic' : undefined;
    notes.add(semantic?.unavailable ?? SEMANTIC_UNAVAILABLE);
    return lower.includes(pattern.toLowerCase()) ? 'keyword' : undefined;
  }
  return lower.includes(pattern.toLowerCase()) ? 'keyword' : undefined;
}

/**
 * Decides the playbooks' semantic triggers with the model, one call per
 * message: a matcher for `matchTriggers` and a note naming the model. No
 * semantic trigger: nothing is asked. No model: undefined (matchTriggers notes
 * it). The model failing: semantic triggers fall back to keywords, with a note
 * saying why — the chat never fails for it.
 */
export async function prepareSemantic(query: string, playbooks: readonly TriggeredPlaybook[], model: SemanticModel | undefined): Promise<{ semantic?: SemanticOption; notes: string[] }> {
  const patterns = [...new Set(playbooks.flatMap((pb) => pb.triggers.filter((t) => t.type === 'semantic').map((t) => t.pattern.trim())))].filter(Boolean);
  if (!model || patterns.length === 0) return { notes: [] };
  let scores: number[];
  try {
    scores = await model.similarities(query.slice(0, MAX_MATCH_CHARS), patterns);
    if (scores.length !== patterns.length || scores.some((x) => !Number.isFinite(x))) throw new Error(`expected ${patterns.length} similarities, got ${scores.length}`);
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).slice(0, 200);
    return { semantic: { unavailable: `semantic matching with embedding model '${model.name}' failed (${why}); semantic triggers were matched as keywords` }, notes: [] };
  }
  const hit = new Set(patterns.filter((_, i) => scores[i]! >= model.threshold));
  return {
    semantic: (_q, pattern) => hit.has(pattern),
    notes: [`semantic triggers matched by embedding model '${model.name}' (cosine similarity >= ${model.threshold})`],
  };
}

function compare(a: { match: TriggerMatch; attach: number }, b: { match: TriggerMatch; attach: number }): number {
  return (
    b.match.trigger.priority - a.match.trigger.priority ||
    b.attach - a.attach ||
    TYPE_RANK[a.match.matchedAs] - TYPE_RANK[b.match.matchedAs] ||
    b.match.trigger.pattern.length - a.match.trigger.pattern.length ||
    a.match.playbookId.localeCompare(b.match.playbookId)
  );
}
