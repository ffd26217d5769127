/** Answers of the document index routes: search and ingestion status. */
import { z } from 'zod';
import { component, JsonObject, timestamp } from './common.js';

export const DocumentSearchHit = component(
  'DocumentSearchHit',
  z.strictObject({
    rank: z.number().int(),
    document_id: z.string(),
    file: z.string().meta({ description: 'The file name (the workspace document title)' }),
    chunk_id: z.string(),
    page: z.number().int().nullable().meta({ description: 'First page of the chunk (PDF); null when the format has no pages' }),
    page_end: z.number().int().nullable(),
    section: z.string().nullable().meta({ description: 'The heading path of the chunk' }),
    text: z.string().meta({ description: 'The chunk text' }),
    snippet: z.string(),
    score: z.number().meta({ description: 'Fused reciprocal-rank score (ranking only)' }),
    confidence: z.number().meta({ description: '0–1: how well the chunk matches' }),
    file_type: z.string().nullable(),
    folder_path: z.string(),
  }),
  { description: 'One chunk of one of your documents' },
);

export const DocumentSearchAnswer = z.strictObject({
  hits: z.array(DocumentSearchHit),
  count: z.number().int(),
  confidence: z.number().meta({ description: "The best hit's confidence (0 without hits)" }),
  embedder: z.string().meta({ description: 'The embedder of the dense side, e.g. offline-hashed-… (the offline deterministic default) or an OpenAI / Ollama model' }),
  mode: z.enum(['hybrid', 'dense', 'bm25']),
  query_analysis: JsonObject.meta({ description: '{text, filters, names, dates} read from the question' }),
});

export const DocumentIndexAnswer = z.strictObject({
  document_id: z.string(),
  status: z.enum(['pending', 'queued', 'parsing', 'embedding', 'indexed', 'failed', 'deleted']).meta({
    description: 'pending: uploaded, not picked up by ingestion yet; queued, parsing, embedding: ingesting; indexed: searchable; failed: see error; deleted: removed from the index',
  }),
  progress: z.number().meta({ description: '0–1' }),
  chunks: z.number().int().meta({ description: 'Chunks of the document (its points in the index)' }),
  chunks_done: z.number().int(),
  generation: z.number().int().nullable().meta({ description: 'The document version this status is about: an update re-ingests under the next one' }),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  title: z.string(),
  format: z.string().nullable(),
  page_count: z.number().int(),
  embedder: z.string().nullable(),
  description: z.string(),
  description_source: z.string().nullable().meta({ description: 'model or extractive' }),
  updated_at: timestamp.nullable(),
});
