/**
 * The user's long-term memory (`user_long_term_memory`): `critical_facts`
 * (user_name, company_name, job_title, recent_projects) and `preferences`
 * (tone, detail_level, language), extracted from each question by the model
 * and merged into what is kept: a new value replaces the old one, projects
 * accumulate (newest first, at most ten).
 */
import { z } from 'zod';

const text = z.string().trim().min(1).max(200);

export const CriticalFactsSchema = z.object({
  user_name: text.optional(),
  company_name: text.optional(),
  job_title: text.optional(),
  recent_projects: z.array(text).max(10).optional(),
});

export const PreferencesSchema = z.object({
  tone: text.optional(),
  detail_level: text.optional(),
  language: text.optional(),
});

export type CriticalFacts = z.infer<typeof CriticalFactsSchema>;
export type Preferences = z.infer<typeof PreferencesSchema>;

export interface LongTermMemory {
  critical_facts: CriticalFacts;
  preferences: Preferences;
}

export const EMPTY_MEMORY: LongTermMemory = { critical_facts: {}, preferences: {} };

/** What the extractor must answer (JSON Schema for structured output). */
export const EXTRACTION_SCHEMA = {
  type: 'object',
  properties: {
    found: { type: 'boolean' },
    critical_facts: {
      type: 'object',
      properties: { user_name: { type: 'string' }, company_name: { type: 'string' }, job_title: { type: 'string' }, recent_projects: { type: 'array', items: { type: 'string' } } },
    },
    preferences: { type: 'object', properties: { tone: { type: 'string' }, detail_level: { type: 'string' }, language: { type: 'string' } } },
  },
  required: ['found'],
} as const;

export const EXTRACTION_INSTRUCTIONS = [
  'You detect personal data the user states about themselves in their message.',
  'critical_facts: user_name, company_name, job_title, recent_projects. preferences: tone, detail_level, language.',
  'Answer {"found": false} when the message states none. Only record what the message states; never guess.',
].join(' ');

const ExtractionSchema = z.object({
  found: z.boolean(),
  critical_facts: z.record(z.string(), z.unknown()).optional(),
  preferences: z.record(z.string(), z.unknown()).optional(),
});

/** Only the known fields with valid values: the model's extra keys and bad values are dropped, not stored. */
function known<S extends z.ZodObject>(schema: S, value: Record<string, unknown> | undefined): z.infer<S> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const parsed = (field as z.ZodType).safeParse(value?.[key]);
    if (parsed.success && parsed.data !== undefined) out[key] = parsed.data;
  }
  return out as z.infer<S>;
}

/** The extractor's answer as memory to merge; undefined when nothing was found. */
export function parseExtraction(answer: unknown): LongTermMemory | undefined {
  const parsed = ExtractionSchema.safeParse(answer);
  if (!parsed.success || !parsed.data.found) return undefined;
  const found = { critical_facts: known(CriticalFactsSchema, parsed.data.critical_facts), preferences: known(PreferencesSchema, parsed.data.preferences) };
  return Object.keys(found.critical_facts).length + Object.keys(found.preferences).length > 0 ? found : undefined;
}

/** `next` merged into `kept`. */
export function mergeMemory(kept: LongTermMemory, next: LongTermMemory): LongTermMemory {
  const projects = [...(next.critical_facts.recent_projects ?? []), ...(kept.critical_facts.recent_projects ?? [])];
  const seen = new Set<string>();
  const unique = projects.filter((p) => !seen.has(p.toLowerCase()) && seen.add(p.toLowerCase())).slice(0, 10);
  return {
    critical_facts: { ...kept.critical_facts, ...next.critical_facts, ...(unique.length ? { recent_projects: unique } : {}) },
    preferences: { ...kept.preferences, ...next.preferences },
  };
}

/** Stored JSON → memory (unknown keys dropped). */
export function memoryFromRow(critical: unknown, preferences: unknown): LongTermMemory {
  return { critical_facts: known(CriticalFactsSchema, critical as Record<string, unknown>), preferences: known(PreferencesSchema, preferences as Record<string, unknown>) };
}
