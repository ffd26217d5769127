import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { entity } from '@af/contracts';
import type { Knowledge } from '../app/knowledge.js';
import type { DocumentQueries } from '../documents/app/document-queries.js';
import {
  toWireDiscovery,
  toWireEntity,
  toWireLog,
  toWireRelationship,
  toWireReview,
  toWireStats,
} from './entity.mapper.js';

const DEPS = Symbol('EntityDeps');
const DOCUMENTS = Symbol('DocumentQueries');
const user = (p: { userId: string } | undefined) => p?.userId ?? '';

@Controller()
@entity.EntityServiceControllerMethods()
export class EntityController implements entity.EntityServiceController {
  constructor(
    @Inject(DEPS) private readonly k: Knowledge,
    @Inject(DOCUMENTS) private readonly documents: DocumentQueries,
  ) {}

  async listReviews(req: entity.ListReviewsRequest): Promise<entity.ListReviewsResponse> {
    return {
      reviews: (await this.k.listReviews(user(req.principal), req.status, req.limit)).map(toWireReview),
    };
  }

  async decideReview(req: entity.DecideReviewRequest): Promise<entity.DecideReviewResponse> {
    const { review, log } = await this.k.decideReview(user(req.principal), req.reviewId, req.decision);
    return { review: toWireReview(review), logEntry: log ? toWireLog(log) : undefined };
  }

  async listResolutionLog(req: entity.ListResolutionLogRequest): Promise<entity.ListResolutionLogResponse> {
    return { entries: (await this.k.listLog(user(req.principal), req.action, req.limit)).map(toWireLog) };
  }

  async reverseDecision(req: entity.ReverseDecisionRequest): Promise<entity.ReverseDecisionResponse> {
    return { entry: toWireLog(await this.k.reverse(user(req.principal), req.logId)) };
  }

  async splitEntity(req: entity.SplitEntityRequest): Promise<entity.SplitEntityResponse> {
    return { entry: toWireLog(await this.k.split(user(req.principal), req.memberId)) };
  }

  async listDiscoveries(req: entity.ListDiscoveriesRequest): Promise<entity.ListDiscoveriesResponse> {
    return {
      discoveries: (
        await this.k.listDiscoveries(user(req.principal), req.executionId, req.discoveryType, req.limit)
      ).map(toWireDiscovery),
    };
  }

  async discoveryStats(req: entity.DiscoveryStatsRequest): Promise<entity.DiscoveryStatsResponse> {
    return toWireStats(await this.k.discoveryStats(user(req.principal)));
  }

  async searchGraph(req: entity.SearchGraphRequest): Promise<entity.SearchGraphResponse> {
    return {
      entities: (await this.k.search(user(req.principal), req.query, req.entityTypes ?? [], req.limit)).map(
        toWireEntity,
      ),
    };
  }

  async getNeighbourhood(req: entity.GetNeighbourhoodRequest): Promise<entity.GetNeighbourhoodResponse> {
    const sub = await this.k.neighbourhood(user(req.principal), req.entityId, req.maxHops, req.maxNodes);
    return { entities: sub.nodes.map(toWireEntity), relationships: sub.edges.map(toWireRelationship) };
  }

  async analyzeGraph(req: entity.AnalyzeGraphRequest): Promise<entity.AnalyzeGraphResponse> {
    const out = await this.k.analyze(user(req.principal), req.algorithm, req.entities ?? [], req.maxNodes);
    return { results: out.results, nodeCount: out.nodeCount, edgeCount: out.edgeCount };
  }

  async searchDocuments(req: entity.SearchDocumentsRequest): Promise<entity.SearchDocumentsResponse> {
    const out = await this.documents.searchDocuments(user(req.principal), {
      query: req.query,
      ...(req.topK ? { top_k: req.topK } : {}),
      ...(req.filters && Object.keys(req.filters).length ? { filters: req.filters } : {}),
    });
    return { hits: out.hits, embedder: out.embedder, confidence: out.confidence, queryAnalysis: out.queryAnalysis, mode: out.mode };
  }

  async getDocumentIndex(req: entity.GetDocumentIndexRequest): Promise<entity.GetDocumentIndexResponse> {
    const d = await this.documents.documentIndex(user(req.principal), req.documentId);
    return {
      documentId: d.documentId,
      status: d.status,
      progress: d.progress,
      chunksTotal: d.chunksTotal,
      chunksDone: d.chunksDone,
      version: d.version,
      errorCode: d.errorCode ?? '',
      error: d.error ?? '',
      title: d.title,
      format: d.format ?? '',
      pageCount: d.pageCount,
      embedder: d.embedder ?? '',
      description: d.description,
      descriptionSource: d.descriptionSource ?? '',
      updatedAt: d.updatedAt.toISOString(),
    };
  }
}

@Module({})
export class EntityModule {
  static forRoot(knowledge: Knowledge, documents: DocumentQueries): DynamicModule {
    return {
      module: EntityModule,
      controllers: [EntityController],
      providers: [
        { provide: DEPS, useValue: knowledge },
        { provide: DOCUMENTS, useValue: documents },
      ],
    };
  }
}
