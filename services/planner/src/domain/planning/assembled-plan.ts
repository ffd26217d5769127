/** The assembler's result and node names, shared by the assembler, the node builders and the validators. */
import type { CompiledFacetSchema, PlanDiagnostic, PlanGraph } from '@af/plan';
import type { CapabilityView, DraftNode } from './types.js';

export const STRUCTURE_NODE = 'structure_inputs';
export const NORMALIZE_NODE = 'normalize_output';
export const BRANCH_NODE = 'branch_variants';

/** One node of the assembled plan with what validators need to know about it. */
export interface AssembledNode {
  id: string;
  stage: DraftNode['stage'];
  capability?: CapabilityView;
  capabilityId?: string;
  derivedFrom?: string;
  /** Input facets with a source (what the node's input schema holds). */
  inputFacets: string[];
  /** Input facets the draft asked for (validated against the capability's contract). */
  requestedInputs?: string[];
  /** Required input facets nothing supplies. */
  unsourced: string[];
  outputFacets: string[];
  dependsOn: string[];
  variant?: { index: number; count: number; branchId: string };
  /** Part of the previous plan version, copied unchanged. */
  locked: boolean;
  /** Exists only as another node's fallback. */
  fallbackFor?: string;
  inputContract?: CompiledFacetSchema;
  outputContract?: CompiledFacetSchema;
}

/** Where a property of the caller's output comes from. */
export interface OutputBinding {
  property: string;
  facet: string;
  nodeId: string;
  /** JSON pointer inside that node's output. */
  pointer: string;
}

export interface AssembledPlan {
  plan?: PlanGraph;
  nodes: AssembledNode[];
  bindings: OutputBinding[];
  diagnostics: PlanDiagnostic[];
  normalizationInjected: boolean;
  structuringInjected: boolean;
  branchCount: number;
  derivedCapabilities: string[];
}

export interface AssembleOptions {
  plannerRuntime: string;
  plannerModel?: string;
  /** Plan version (1, or previous + 1 for a replan). */
  version: number;
  attempt: number;
}
