/**
 * The graph-store port the actions and RPCs call (`GraphStore`), and the
 * narrower storage port under it (`GraphStorage`): the decision flow —
 * candidates, the domain's decision, merge / review / new entity, the log
 * entry, reversal and split — is one use case (graph-resolution.ts) over
 * `GraphStorage`, which PostgreSQL (infra/pg-graph-store.ts) and Neo4j
 * (infra/neo4j/neo4j-graph-store.ts) implement with storage only.
 */
import type { ActionReceipt } from '@af/service-kit';
import type { Thresholds } from '../domain/decision.js';
import type { NormalisedRecord } from '../domain/normalise.js';
import type { ErRecord, ExternalIds } from '../domain/record.js';
import type { LogEntry } from './log-entries.js';

export interface Provenance {
  executionId: string;
  nodeId: string;
  connector?: string;
  endpoint?: string;
}

/** One entity to resolve, with optional relationships to others (resolved the same way). */
export interface InputEntity extends ErRecord {
  confidence?: number;
  subtype?: string;
  recordIndex?: number;
  relationships?: Array<{ type: string; target: InputEntity; properties?: Record<string, unknown> }>;
}

export interface EntityView {
  id: string;
  name: string;
  canonicalName: string;
  type: string;
  subtype: string;
  aliases: string[];
  externalIds: Record<string, string>;
  confidence: number;
  mergeCount: number;
  sourceCount: number;
  firstSeen: string;
  lastSeen: string;
  source: string;
  /** The entity rows merged into this one (the root first): what a split can take out. */
  members: Array<{ id: string; name: string; source: string }>;
}

export interface RelationshipView {
  sourceId: string;
  targetId: string;
  type: string;
  properties: Record<string, unknown>;
  confidence: number;
}

export interface ResolvedOne {
  /** The entity (root) the record belongs to now. */
  entityId: string;
  /** The record's own entity row. */
  mentionId: string;
  decision: 'auto_merge' | 'flag_review' | 'create_new';
  probability: number;
  reviewId?: string;
  candidateEntityId?: string;
  /** The entity as the record's write left it, when the store gave it with the write (one record): the answer reads nothing more. */
  view?: EntityView;
}

/**
 * The receipt of the action call a resolve belongs to (service-kit's ActionReceipt): written in the
 * resolve's own write, so a call whose process dies after that write is answered from the receipt
 * rather than resolving its records a second time.
 */
export interface ResolveReceipt {
  call: ActionReceipt;
  /** What the receipt holds, from this resolve's results. */
  body(results: readonly ResolvedOne[]): unknown;
  /** The call is complete with this write (else a checkpoint: more resolves of the call follow). */
  final: boolean;
}

export interface ReviewRow {
  id: string;
  executionId: string;
  sourceEntityId: string;
  sourceEntityName: string;
  sourceEntityType: string;
  candidateEntityId: string;
  candidateEntityName: string;
  confidence: number;
  matchDetails: Record<string, unknown>;
  context: Record<string, unknown>;
  status: string;
  reviewedAt: string;
  createdAt: string;
}

export interface LogRow {
  id: string;
  executionId: string;
  action: string;
  sourceEntityId: string;
  sourceEntityName: string;
  sourceEntityType: string;
  targetEntityId: string;
  targetEntityName: string;
  confidence: number;
  matchMethod: string;
  matchDetails: Record<string, unknown>;
  isReversible: boolean;
  reversedAt: string;
  createdAt: string;
}

export interface DiscoveryRow {
  id: string;
  executionId: string;
  discoveryType: string;
  entityName: string;
  entityType: string;
  entityId: string;
  relationshipType: string;
  relatedEntityName: string;
  sourceConnector: string;
  sourceEndpoint: string;
  confidence: number;
  details: Record<string, unknown>;
  discoveredAt: string;
}

/** Named entities in free text, found by a language model (infra/llm-extractor.ts). */
export interface TextEntityExtractor {
  /** The model's name, reported with what it found. */
  readonly model: string;
  extract(
    texts: ReadonlyArray<{ index: number; field: string; text: string }>,
    entityTypes: readonly string[],
  ): Promise<Array<{ index: number; field: string; name: string; type: string; confidence: number }>>;
}

/** The decisions: resolving records, a review's outcome, reversal and split (app/graph-resolution.ts). */
export interface GraphDecisions {
  /** Which adapter: `postgres` or `neo4j`. */
  readonly kind: string;
  /** Whether a resolve writes its action call's receipt with its decisions (GraphStorage.receipts). */
  readonly receipts: boolean;
  resolve(
    owner: string,
    prov: Provenance,
    entities: readonly InputEntity[],
    thresholds: Thresholds,
    /** The action call's receipt, written with the decisions where the store can (GraphStorage.receipts). */
    receipt?: ResolveReceipt,
  ): Promise<ResolvedOne[]>;
  decideReview(
    owner: string,
    id: string,
    decision: 'approve' | 'reject' | 'not_a_match',
  ): Promise<{ review: ReviewRow; log?: LogRow }>;
  reverse(owner: string, logId: string): Promise<LogRow>;
  /** Take `memberId` (and what was merged under it) out of its entity: a user_split, reversible. */
  split(owner: string, memberId: string): Promise<LogRow>;
  /**
   * Key again up to `limit` stored entities (of any owner) whose block keys
   * are of an older version than BLOCK_KEYS_VERSION; answers how many.
   */
  rekeyStale(limit: number): Promise<number>;
}

/** The reads of the graph (and the stored communities), which each adapter answers itself. */
export interface GraphReads {
  entities(owner: string, ids: readonly string[]): Promise<EntityView[]>;
  /** The root each of `ids` (any entity rows, merged or not) reads through now; an id not in the namespace is left out. */
  rootsOf(owner: string, ids: readonly string[]): Promise<Map<string, string>>;
  listReviews(owner: string, status: string, limit: number): Promise<ReviewRow[]>;
  listLog(owner: string, action: string, limit: number): Promise<LogRow[]>;
  listDiscoveries(owner: string, executionId: string, type: string, limit: number): Promise<DiscoveryRow[]>;
  discoveryStats(owner: string): Promise<{
    total: number;
    byType: Record<string, number>;
    byEntityType: Record<string, number>;
    entities: number;
    relationships: number;
    pendingReviews: number;
  }>;
  search(
    owner: string,
    queries: readonly string[],
    types: readonly string[],
    limit: number,
  ): Promise<EntityView[]>;
  /** Root entities and root-level edges around `seeds` (or of the whole namespace), at most `maxNodes` nodes. */
  subgraph(
    owner: string,
    seeds: readonly string[] | undefined,
    maxHops: number,
    maxNodes: number,
  ): Promise<{ nodes: EntityView[]; edges: RelationshipView[]; truncated: boolean }>;
  newEntitiesSince(
    owner: string,
    types: readonly string[],
    since: string,
    minConfidence: number,
    source: string,
    limit: number,
  ): Promise<Array<EntityView & { createdAt: string }>>;
  saveCommunities(owner: string, algorithm: string, communities: string[][]): Promise<void>;
}

/** The graph-store port the actions and RPCs call. */
export type GraphStore = GraphDecisions & GraphReads;


/** A discovery row to write (`agent_discoveries`). */
export interface DiscoveryInput {
  type: string;
  name: string;
  entityType: string;
  entityId: string;
  relationshipType?: string;
  related?: string;
  confidence?: number;
}

/** A new mention (its own root) to store, with what it was stored under. */
export interface MentionInput {
  owner: string;
  id: string;
  prov: Provenance;
  input: InputEntity;
  /** The normalised record, `recordId` the mention's id. */
  record: NormalisedRecord;
  subtype: string;
  /** Block keys, and the term-frequency key (counted, never searched). */
  keys: readonly string[];
  /** The term-frequency key (among `keys`). */
  termKey: string;
  /** The version of `keys` (BLOCK_KEYS_VERSION). */
  keysVersion: number;
}

/**
 * What a new mention's decision writes with it: the link of a merge, or the review item of a
 * question, and the decision's log entry and discovery (one statement where the store can).
 */
export interface MentionDecision {
  /** Merged: the mention is stored linked under `parent` (a root) by decision `log.id`. */
  link?: { parent: string };
  /** Queued for review. */
  review?: ReviewInput;
  /** With its id: a link names the decision that made it. */
  log: LogEntry & { id: string };
  found: { prov: Provenance; discovery: DiscoveryInput };
  /** The action call's receipt, written in the same statement; nothing is written when the call was finished by another holder. */
  receipt?: { call: ActionReceipt; body: unknown; final: boolean };
}

/** What storing a mention did. */
export interface MentionWrite {
  /** False only when the decision carries a receipt whose call another holder finished: then nothing was written. */
  written: boolean;
  /** The entity the mention belongs to, as the write left it, where the store reads it in the same statement. */
  view?: EntityView;
}

/** A review item to queue. */
export interface ReviewInput {
  owner: string;
  id: string;
  executionId: string;
  sourceId: string;
  sourceName: string;
  sourceType: string;
  candidateId: string;
  candidateName: string;
  confidence: number;
  details: Record<string, unknown>;
  context: Record<string, unknown>;
}

/** What the candidates of a record are read as: mentions, their entities' names and ids. */
export interface CandidateRows {
  mentions: Array<{ id: string; rootId: string; record: NormalisedRecord }>;
  rootNames: Map<string, string>;
  clusterIds: Array<{ rootId: string; ids: ExternalIds }>;
  /**
   * Entities stored under the record's term-frequency key and under each mention's own, where the
   * store counts them in the same read; a key missing here is counted with `countBlockKeys`.
   */
  termCounts: Map<string, number>;
}

/** A mention related to a member of entity `rootId`: its record, its own entity, how related that entity is. */
export interface NeighbourRow {
  rootId: string;
  record: NormalisedRecord;
  entityId: string;
  /** Relationships of the neighbour's entity, counted up to the cap asked for. */
  degree: number;
}

/** A mention's link state, read under a write lock. */
export interface LinkState {
  parentId: string | null;
  /** The merge decision whose link this is. */
  linkLogId: string | null;
  name: string;
  type: string;
}

/** A log entry as stored, read under a write lock, for its reversal. */
export interface StoredDecision {
  id: string;
  action: string;
  reversible: boolean;
  reversed: boolean;
  linkChild: string | null;
  linkParent: string | null;
  /** A split: the merge decision whose link it removed. */
  linkOwner: string | null;
}

/**
 * Storage operations inside one write transaction. Every one is scoped to
 * `owner`; none decides anything.
 */
export interface GraphWrites {
  /**
   * Entity ids under each block key: at most `perKey` under a key other than an id key (a block
   * bigger than the search limit needs only to be seen to be too big), at most 20,000 under an id key.
   */
  blockHits(owner: string, keys: readonly string[], perKey: number): Promise<Array<{ key: string; entityId: string }>>;
  /**
   * The mentions among `ids` of `type`, each with the root it reads through; the name of each of
   * those roots; the external ids their members hold, one row per member id (first one kept per kind);
   * and the term-frequency counts of `termKey` (the record's) and of the mentions' keys, where it can.
   */
  candidateMentions(owner: string, ids: readonly string[], type: string, termKey: string): Promise<CandidateRows>;
  /**
   * The mentions related (by a relationship in either direction) to a member of each of `roots`,
   * at most 2,000 rows, each with its entity (root) and how many relationships that entity has,
   * counted up to `cap`.
   */
  neighbours(owner: string, roots: readonly string[], cap: number): Promise<NeighbourRow[]>;
  /** Entities of `type` in the namespace. */
  countEntities(owner: string, type: string): Promise<number>;
  /** Entities stored under each of `keys` (term-frequency counts); every key is in the map, 0 when none. */
  countBlockKeys(owner: string, keys: readonly string[]): Promise<Map<string, number>>;
  /**
   * A new mention with its aliases, ids, block keys and provenance: its own root, or (`decision.link`)
   * linked under an entity; with its decision's review item, log entry and discovery when given.
   */
  /** `withView`: give the entity as the write left it, where the store reads it in the same statement (a one-record call's answer). */
  insertMention(m: MentionInput, decision?: MentionDecision, withView?: boolean): Promise<MentionWrite>;
  /** The action call's receipt (service-kit's `receiptSql`), in this transaction: false when another holder finished the call. */
  writeReceipt(call: ActionReceipt, body: unknown, final: boolean): Promise<boolean>;
  /** A relationship between two mentions. */
  relate(owner: string, sourceId: string, targetId: string, type: string, properties: Record<string, unknown>): Promise<void>;
  /** Link root `child` under `parent` (decision `by`); every member of the child's tree now reads through `root`. */
  link(owner: string, child: string, parent: string, root: string, by: string | null): Promise<void>;
  /** Remove the link of `child`; its subtree becomes its own entity again. */
  unlink(owner: string, child: string): Promise<void>;
  rootOf(owner: string, id: string): Promise<string | undefined>;
  nameOf(owner: string, id: string): Promise<string>;
  lockEntity(owner: string, id: string): Promise<LinkState | undefined>;
  lockReview(owner: string, id: string): Promise<ReviewRow | undefined>;
  /** Pending review items whose two entities both read through `root` now (a merge joined them), locked. */
  lockPendingReviewsWithin(owner: string, root: string): Promise<ReviewRow[]>;
  /** Review items closed as `auto_merged` by decision `logId` (`context.merged_by`), locked. */
  lockReviewsClosedBy(owner: string, logId: string): Promise<ReviewRow[]>;
  /** Sets the status (and `reviewed_at`: now, or none when back to `pending`). */
  setReviewStatus(owner: string, id: string, status: string, context: Record<string, unknown>): Promise<ReviewRow>;
  /** The log entry, and the discovery the decision makes when given (one statement where the store can). */
  log(e: LogEntry, found?: { prov: Provenance; discovery: DiscoveryInput }): Promise<LogRow>;
  lockDecision(owner: string, id: string): Promise<StoredDecision | undefined>;
  markReversed(owner: string, id: string): Promise<LogRow>;
  discover(owner: string, prov: Provenance, d: DiscoveryInput): Promise<void>;
  /** Up to `limit` entities of any owner whose keys are of a version below `version`, locked (others skip them). */
  staleKeyed(version: number, limit: number): Promise<Array<{ owner: string; id: string; record: NormalisedRecord }>>;
  /**
   * Up to `limit` entities of any owner without their term-frequency key on their row (stored before
   * it was kept there), locked (others skip them). None where the store does not keep it (Neo4j).
   */
  withoutTermKey(limit: number): Promise<Array<{ owner: string; id: string; record: NormalisedRecord }>>;
  /** Set each entity's term-frequency key on its row. */
  setTermKeys(keys: ReadonlyArray<{ owner: string; id: string; termKey: string }>): Promise<void>;
  /** Replace an entity's block keys (and term-frequency key, `termKey`, among them) with `keys` of `version`. */
  rekey(owner: string, id: string, keys: readonly string[], version: number, termKey: string | null): Promise<void>;
}

/** The reads a record's decision is made from. */
export type ResolveReads = Pick<GraphWrites, 'blockHits' | 'candidateMentions' | 'neighbours' | 'countEntities' | 'countBlockKeys' | 'nameOf'>;

/**
 * One connection outside a transaction: the reads of a decision, and `insertMention`, which is one
 * atomic write; more writes go through `transaction`.
 */
export interface GraphSession extends ResolveReads {
  insertMention: GraphWrites['insertMention'];
  /** `work` in one write transaction on this session's connection: all of it commits, or none. */
  transaction<T>(work: (tx: GraphWrites) => Promise<T>): Promise<T>;
}

/** What a graph-store adapter implements: storage, in write transactions, and the reads. */
export interface GraphStorage {
  /** Which adapter: `postgres` or `neo4j`. */
  readonly kind: string;
  readonly reads: GraphReads;
  /**
   * Whether its writes can carry an action call's receipt: the graph lives in the database of the
   * service's action records (PostgreSQL), so both commit together.
   */
  readonly receipts: boolean;
  /** Relationship types the storage can hold, when restricted: others are refused before any write. */
  readonly relationshipType?: RegExp;
  /** `work` in one write transaction: all of it commits, or none. */
  write<T>(work: (tx: GraphWrites) => Promise<T>): Promise<T>;
  /**
   * `work` on one connection without a transaction around it: for a call whose writes are a single
   * statement, which needs no begin and commit of its own (where the store has no such statement,
   * the session may be one transaction).
   */
  session<T>(work: (s: GraphSession) => Promise<T>): Promise<T>;
}
