/**
 * The document index over HTTP, in front of entity-resolution: hybrid
 * search over the caller's own indexed documents
 * (`POST /api/v1/documents/search`) and the ingestion status of one
 * document (`GET /api/v1/documents/:id/index`). Another user's document is
 * 404; without ENTITY_RESOLUTION_URL the routes answer 503.
 */
import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import type { common, entity } from '@af/contracts';
import { AppError, call } from '@af/service-kit';
import { ER_CLIENT } from '../entity-resolution/entity-resolution.controller.js';
import { AuthGuard, CurrentUser } from '../http/auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../http/deps.js';
import { parseBody } from '../http/validation.js';
import { workspaceClient } from '../workspace/workspace.controller.js';
import { DocumentSearchSchema } from './documents.schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function need(client: entity.EntityServiceClient | undefined): entity.EntityServiceClient {
  if (!client) throw new AppError('UNAVAILABLE', 'the document index is not deployed here (ENTITY_RESOLUTION_URL is not set)', { retryable: false });
  return client;
}

const orNull = (s: string) => s || null;

@Controller('api/v1/documents')
@UseGuards(AuthGuard)
export class DocumentsController {
  constructor(
    @Inject(ER_CLIENT) private readonly client: entity.EntityServiceClient | undefined,
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
  ) {}

  @Post('search')
  @HttpCode(200)
  async search(@CurrentUser() principal: common.Principal, @Body() body: unknown) {
    const input = parseBody(DocumentSearchSchema, body);
    const r = await call(need(this.client).searchDocuments({ principal, query: input.query, topK: input.top_k ?? 0, filters: input.filters ?? {} }));
    return { hits: r.hits, count: r.hits.length, confidence: r.confidence, embedder: r.embedder, mode: r.mode, query_analysis: r.queryAnalysis ?? {} };
  }

  @Get(':id/index')
  async index(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    if (!UUID.test(id)) throw AppError.invalid('id', 'must be a document id (UUID)');
    try {
      const d = await call(need(this.client).getDocumentIndex({ principal, documentId: id }));
      return {
        document_id: d.documentId,
        status: d.status,
        progress: d.progress,
        chunks: d.chunksTotal,
        chunks_done: d.chunksDone,
        generation: d.version,
        error: d.status === 'failed' || d.error ? { code: d.errorCode || 'failed', message: d.error } : null,
        title: d.title,
        format: orNull(d.format),
        page_count: d.pageCount,
        embedder: orNull(d.embedder),
        description: d.description,
        description_source: orNull(d.descriptionSource),
        updated_at: orNull(d.updatedAt),
      };
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'NOT_FOUND') throw err;
      return this.pending(principal, id);
    }
  }

  /** A document of the caller's workspace the ingestion has not picked up yet is `pending`; anything else is 404. */
  private async pending(principal: common.Principal, id: string) {
    const notFound = new AppError('NOT_FOUND', `document ${id} not found: no document of yours has this id`, { violations: [{ field: 'id', reason: 'no document of yours has this id', code: 'not_found' }] });
    if (!this.deps.kit.config.OUTPUT_ROUTER_URL) throw notFound;
    const r = await call(workspaceClient(this.deps).getDocument({ principal, documentId: id, version: 0 })).catch((err: unknown) => {
      throw err instanceof AppError && err.code === 'NOT_FOUND' ? notFound : err;
    });
    const doc = r.document!;
    return {
      document_id: id,
      status: 'pending',
      progress: 0,
      chunks: 0,
      chunks_done: 0,
      generation: null,
      error: null,
      title: doc.title,
      format: null,
      page_count: 0,
      embedder: null,
      description: '',
      description_source: null,
      updated_at: null,
    };
  }
}
