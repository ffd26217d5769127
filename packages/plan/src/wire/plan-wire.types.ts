/**
 * The wire shape of a PlanGraph: structurally the ts-proto interfaces of
 * `agentfactory.plan.v1` (protos/agentfactory/plan/v1/plan.proto, generated
 * into @af/contracts). They are restated here so @af/plan stays free of the
 * contracts package; the services assign these to and from the generated
 * types, so the compiler proves the two agree wherever a plan crosses the
 * wire. Enums are numbers, int64 fields decimal strings, Struct fields plain
 * JSON objects — as @grpc/proto-loader with `grpcLoaderOptions` delivers them.
 */
import { ErrorPolicySchema, NODE_KINDS, PlanGraphSchema, RouteSchema } from '../ir.js';

/** A `google.protobuf.Struct` as the runtime loader and ts-proto hand it over. */
export type WireStruct = { [key: string]: any } | undefined;

export interface PlanGraphWire {
  irVersion?: number | undefined;
  version?: number | undefined;
  id?: string | undefined;
  name?: string | undefined;
  provenance: ProvenanceWire | undefined;
  executionMode: number;
  runContext: number;
  approvalPolicy: number;
  inputs: PlanInputWire[];
  nodes: PlanNodeWire[];
  output: WireStruct;
  metadata: WireStruct;
}

export interface ProvenanceWire {
  frontEnd: number;
  sourceId?: string | undefined;
  sourceVersion?: string | undefined;
}

export interface PlanInputWire {
  name: string;
  type?: string | undefined;
  description?: string | undefined;
  required?: boolean | undefined;
  /** JSON text: a default may be any JSON value, which a Struct cannot carry. */
  defaultJson?: string | undefined;
  extractFrom?: string | undefined;
  /** JSON text of the allowed values. */
  enumJson?: string | undefined;
}

export interface PlanNodeWire {
  id: string;
  kind: number;
  action?: string | undefined;
  description?: string | undefined;
  inputs: WireStruct;
  params: WireStruct;
  condition?: string | undefined;
  conditionDialect: number;
  outputKey?: string | undefined;
  inputSchema: WireStruct;
  outputSchema: WireStruct;
  errorPolicy: ErrorPolicyWire | undefined;
  cache: CachePolicyWire | undefined;
  dependsOn: string[];
  routes: RouteWire[];
  elseTo: string[];
  body: MapBodyWire | undefined;
  fallbackFor?: string | undefined;
  capabilityId?: string | undefined;
  source?: string | undefined;
}

export interface ErrorPolicyWire {
  onError: number;
  retry: RetryPolicyWire | undefined;
  fallback: string[];
  rollback: WireStruct;
  rollbackOnError?: boolean | undefined;
  /** int64 */
  timeoutMs?: string | undefined;
}

export interface RetryPolicyWire {
  maxRetries?: number | undefined;
  /** int64 */
  backoffMs?: string | undefined;
  multiplier?: number | undefined;
  /** int64 */
  maxBackoffMs?: string | undefined;
  retryableCodes: string[];
}

export interface CachePolicyWire {
  key: string;
  /** int64 */
  ttlSeconds: string;
}

export interface RouteWire {
  condition: string;
  conditionDialect: number;
  to: string[];
}

export interface MapBodyWire {
  nodes: PlanNodeWire[];
  itemsFrom?: string | undefined;
  maxIterations?: number | undefined;
  concurrency?: number | undefined;
  continueOnError?: boolean | undefined;
}

/**
 * The proto enums, by proto enum name: wire value `i + 1` is the zod option
 * `values[i]` (0 is `*_UNSPECIFIED`, read as absent). Taken from the IR schema
 * so the order has one source; a spec checks plan.proto declares the same.
 */
export const WIRE_ENUMS = {
  NodeKind: NODE_KINDS,
  ConditionDialect: RouteSchema.shape.conditionDialect.unwrap().options,
  OnError: ErrorPolicySchema.shape.onError.unwrap().options,
  FrontEnd: PlanGraphSchema.shape.provenance.unwrap().shape.frontEnd.options,
  ExecutionMode: PlanGraphSchema.shape.executionMode.unwrap().options,
  RunContext: PlanGraphSchema.shape.runContext.unwrap().options,
  ApprovalPolicy: PlanGraphSchema.shape.approvalPolicy.unwrap().options,
} as const;
export type WireEnumName = keyof typeof WIRE_ENUMS;
