/**
 * The shapes planning works on: the capability snapshot the planner sees, the
 * draft a planner proposes (deterministic or LLM), and the context of one
 * planning request. Drafts name capabilities and facets only; the assembler
 * turns them into a PlanGraph with compiled contracts.
 */
import type { AgentType, FacetCatalog, FacetContractCompiler, PlanGraph, TaskEnvelope } from '@af/plan';

/** A registered capability as planning sees it (instances folded into one entry). */
export interface CapabilityView {
  capabilityId: string;
  agentType: AgentType;
  displayName: string;
  summary: string;
  version: string;
  inputFacets: string[];
  outputFacets: string[];
  cost?: { tier?: 'economy' | 'standard' | 'premium'; estimatedTokens?: number; estimatedCostUsd?: number };
  preferredModels: string[];
  /** Union of the scopes of its active instances. */
  scopes: string[];
  /** active when at least one instance is fresh. */
  status: 'active' | 'inactive';
  inputTraits?: Record<string, string[] | undefined>;
  instructionTemplates?: Record<string, string>;
  metadata: Record<string, unknown>;
}

/** §5.7 plan taxonomy. */
export const DRAFT_STAGES = ['structuring', 'branch', 'routing', 'execution', 'transformation', 'validation', 'fallback'] as const;
export type DraftStage = (typeof DRAFT_STAGES)[number];

export interface DraftRoute {
  /** Condition DSL over facets (e.g. `facets.post_copy != ""`). */
  condition: string;
  to: string[];
}

export interface DraftNode {
  id: string;
  stage: DraftStage;
  /** A declared capability. */
  capabilityId?: string;
  /** For a derived capability: the registered capability whose agent serves the facet mix (§5.6 "Facet-Aligned Capabilities"). */
  derivedFrom?: string;
  inputFacets: string[];
  outputFacets: string[];
  dependsOn: string[];
  instruction?: string;
  rationale: string;
  routes?: DraftRoute[];
  elseTo?: string[];
}

export interface PlanDraft {
  nodes: DraftNode[];
  rationale?: string;
}

/** A replan keeps completed nodes exactly as they were (§8 "completed nodes remain locked"). */
export interface ReplanContext {
  previous: PlanGraph;
  /** Ids of completed nodes of `previous`. */
  completedNodeIds: string[];
  /** Why a new version is requested (policy id, rationale). */
  trigger?: Record<string, unknown>;
}

export interface PlanningContext {
  envelope: TaskEnvelope;
  catalog: FacetCatalog;
  compiler: FacetContractCompiler;
  /** Every registered capability (inactive ones are never selected, only reported). */
  capabilities: CapabilityView[];
  replan?: ReplanContext;
}
