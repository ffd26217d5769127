/** Request bodies of the document index routes (/api/v1/documents/…). */
import { z } from 'zod';

export const MAX_TOP_K = 50;

export const DocumentSearchSchema = z.strictObject({
  query: z.string().trim().min(1, 'must not be empty').max(2_000, 'must be at most 2000 characters').describe('The question or words to find'),
  top_k: z
    .number('must be a number')
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_TOP_K, `must be at most ${MAX_TOP_K}`)
    .optional()
    .describe(`How many chunks to answer (1–${MAX_TOP_K}, default 8)`),
  filters: z
    .strictObject({
      file_types: z.array(z.string().min(1)).max(20).optional().describe('Only these file types: pdf, docx, xlsx, csv, markdown (md), text (txt), html (htm), spreadsheet'),
      folder_path: z.string().min(1).optional().describe('Only documents in this workspace folder (e.g. /reports)'),
      document_ids: z.array(z.uuid('must be document ids (UUIDs)')).max(1_000).optional().describe('Only these documents'),
      mode: z.enum(['hybrid', 'dense', 'bm25']).optional().describe('hybrid (default: dense and BM25 fused by reciprocal rank), dense or bm25 alone'),
    })
    .optional()
    .describe('Narrow the search; the question itself is also read for dates, file types and names'),
});
