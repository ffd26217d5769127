/** Flex planning primitives (flex-agents-server-spec.md): facets, contracts, capabilities, envelopes, policies, diagnostics. */
export { canonicalJson, compileJsonSchema, schemaProblem, SchemaCompileError, type JsonSchema } from './json-schema.js';
export {
  FACET_DIRECTIONS,
  FACET_NAME,
  FacetCatalog,
  FacetCatalogError,
  FacetDefinitionSchema,
  FacetNameSchema,
  facetAllows,
  facetToDefinition,
  fnv1a,
  parseFacet,
  unknownFacetIssue,
  type Facet,
  type FacetDirection,
  type FacetParse,
} from './facet.js';
export {
  FacetContractCompiler,
  directionIssue,
  validateFacetInputs,
  validateFacetOutputs,
  type CompiledFacetSchema,
  type CompileOptions,
  type ContractDirection,
  type FacetProvenance,
  type FacetValidationError,
  type FacetValidationResult,
} from './facet-contract-compiler.js';
export {
  AGENT_TYPES,
  CAPABILITY_ID,
  CapabilityRegistrationSchema,
  heartbeatTimeoutSeconds,
  parseCapabilityRegistration,
  type AgentType,
  type CapabilityRegistration,
  type CapabilityRegistrationInput,
  type RegistrationParse,
} from './capability.js';
export { normalizeConditionEnvelope, type ConditionEnvelope } from './condition-envelope.js';
export {
  ACTION_TYPES,
  PlannerPolicySchema,
  TRIGGER_KINDS,
  normalizeTaskPolicies,
  policyKeys,
  type NodeSelector,
  type NormalizedPlannerPolicy,
  type NormalizedTaskPolicies,
  type PoliciesParse,
  type PolicyAction,
  type PolicyNote,
  type PolicyTrigger,
  type RuntimePolicy,
} from './policies.js';
export {
  CONSTRAINT_LEVELS,
  TaskEnvelopeSchema,
  parseTaskEnvelope,
  type ConstraintLevel,
  type ConstraintSpec,
  type EnvelopeParse,
  type FacetCondition,
  type OutputContract,
  type TaskEnvelope,
} from './task-envelope.js';
export {
  DEFAULT_WEIGHTS,
  DIAGNOSTIC_CAUSES,
  SEVERITIES,
  bundleDiagnostics,
  diagnosticKey,
  mergeDiagnostics,
  satisfactionScore,
  type BundleStatus,
  type DiagnosticBundle,
  type DiagnosticCause,
  type PlanDiagnostic,
  type ScoreWeights,
  type Severity,
} from './diagnostics.js';
export { zodKeysAt } from './zod-keys.js';
