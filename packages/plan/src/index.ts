/**
 * `@af/plan` — the Plan IR, its structural validation and scheduling view,
 * the Action I/O registry, and the compilers from every workflow front-end
 * (playbook YAML, workflow_steps JSON, master-agent plans) to a PlanGraph.
 * Pure code: no I/O.
 */
export * from './ir.js';
export type { PlanIssue, StepIssue, StepValidationResult, SeedStepValidationResult } from './issues/plan-issue.js';
export { toSeedValidationResult, stepIssueToPlanIssue } from './issues/plan-issue.js';
export { editDistance, nearestName } from './issues/nearest-name.js';
export { checkRunInputs, inputValueMatches, type RunInputIssue } from './inputs/run-inputs.js';
export { CONFIGURE_MODEL_HINT, llmNodes, type LlmNodeRef } from './graph/llm-nodes.js';
export { validatePlan, validateParsedPlan } from './graph/validate-plan.js';
export { kahnLevels, kahnStages, parallelGroups, findCycle, PlanCycleError, type StageResult } from './graph/kahn-levels.js';
export { RESERVED_ROOTS } from './graph/reference-roots.js';
export { referencedRoots } from './graph/plan-references.js';
export type { FieldSpec, Compatibility } from './types/io-type.js';
export { compatibility, literalType } from './types/io-type.js';
export type { ActionContract, ActionStepType } from './contracts/action-contract.js';
export {
  ActionIORegistry,
  BUILTIN_ACTIONS,
  defaultActionRegistry,
  PluginRegistrationSchema,
  ToolIOContractSchema,
  type PluginRegistration,
  type ToolIOContract,
} from './contracts/action-registry.js';
export {
  ConnectorDefinitionSchema,
  connectorLookup,
  deriveConnectorContract,
  type ConnectorBinding,
  type ConnectorContract,
  type ConnectorContractLookup,
  type ConnectorDefinition,
  type EndpointContract,
  type EntityExtractionHint,
} from './contracts/connector-contract.js';
export { ENRICH_ACTION, enrichNodes, PLAYBOOK_ENRICH_FLAG, PROFILE_ENRICH_FLAG } from './playbook/enrich-nodes.js';
export { outputSchemaToJsonSchema as stepOutputSchemaToJsonSchema } from './playbook/step-output.js';
export { compilePlaybook, compilePlaybookValue, type CompilePlaybookOptions, type CompileResult } from './playbook/compile-playbook.js';
export { locateInYaml } from './playbook/yaml-source.js';
export { OUTPUT_NODE_ID, OUTPUT_NODE_METADATA, outputRoutingReport, outputTableName, type OutputBlockOptions } from './playbook/output-block.js';
export {
  COLUMN_TYPES,
  DESTINATION_FORMATS,
  DESTINATION_TYPES,
  columnsFromMapping,
  destinationSchema,
  identifierProblem,
  parseDestinations,
  playbookDestinationProblems,
  templateProblem,
  TEMPLATE_VAR,
  type Column,
  type ColumnType,
  type Destination,
  type DestinationFormat,
  type DestinationProblem,
  type DestinationType,
  type ParsedDestination,
} from './playbook/output-destinations.js';
export { PlaybookSchema, type Playbook, type PlaybookStep } from './playbook/playbook.schema.js';
export { compileWorkflowSteps, type CompileWorkflowOptions } from './workflow/compile-workflow.js';
export { WorkflowStepSchema, type WorkflowStepInput } from './workflow/workflow.schema.js';
export { workflowOutputCheck, WorkflowOutputSchema, type WorkflowOutput, type WorkflowOutputCheck } from './workflow/workflow-output.js';
export { compileMasterPlan, type CompileMasterPlanOptions } from './master/compile-master-plan.js';
export { compileNodeCondition } from './graph/node-condition.js';
export {
  configurePlanLimits,
  countPlanNodes,
  countPlaybookSteps,
  countWorkflowSteps,
  DEFAULT_PLAN_MAX_NODES,
  masterPlanSizeIssue,
  planMaxNodes,
  planSizeIssue,
  playbookSizeIssue,
  workflowSizeIssue,
} from './limits/plan-size.js';
export { planToWire, planFromWire, PlanWireError } from './wire/plan-wire.js';
export {
  WIRE_ENUMS,
  type PlanGraphWire,
  type PlanNodeWire,
  type PlanInputWire,
  type ProvenanceWire,
  type ErrorPolicyWire,
  type RetryPolicyWire,
  type CachePolicyWire,
  type RouteWire,
  type MapBodyWire,
  type WireStruct,
  type WireEnumName,
} from './wire/plan-wire.types.js';
export * from './flex/index.js';
export {
  actionOwner,
  CATEGORY_OWNERS,
  IN_PROCESS_TOOL_ACTIONS,
  plannedActions,
  servedActionNames,
  unavailableActions,
  type ActionViolation,
  type PlannedAction,
} from './contracts/action-availability.js';
