/** The document index routes in the API document (/api/docs). */
import * as R from '../http/responses/index.js';
import type { RouteDoc } from '../http/responses/document.js';
import { DocumentSearchSchema } from './documents.schemas.js';

const UNDEPLOYED = { '503': 'The deployment has no document index (ENTITY_RESOLUTION_URL unset)' };

export const DOCUMENT_ROUTES: RouteDoc[] = [
  {
    method: 'post',
    path: '/api/v1/documents/search',
    response: R.DocumentSearchAnswer,
    status: '200',
    tag: 'Documents',
    summary:
      'Search your own indexed documents ({query, top_k?, filters?}): dense and BM25 retrieval fused by reciprocal rank, as the search_documents action runs it. Each hit is a chunk with its file, page, section, text, score and confidence; the answer names the embedder. Other users\' documents are never searched',
    body: DocumentSearchSchema,
    errors: UNDEPLOYED,
  },
  {
    method: 'get',
    path: '/api/v1/documents/{id}/index',
    response: R.DocumentIndexAnswer,
    tag: 'Documents',
    summary: 'The ingestion status of one of your workspace documents: status, progress, chunks, generation (the document version indexed), error',
    errors: { '404': 'No document of yours has this id', ...UNDEPLOYED },
  },
];
