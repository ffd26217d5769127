/**
 * PlanGraph ⇄ `agentfactory.plan.v1.PlanGraph` (plain objects shaped like the
 * ts-proto interfaces, see plan-wire.types.ts).
 *
 * The IR schema stays the only judge of a plan: `planFromWire` rebuilds the
 * IR's object shape and leaves validation (and defaults) to
 * `PlanGraphSchema`, so `PlanGraphSchema.parse(planFromWire(planToWire(p)))`
 * equals `p`. Absent on the wire must read as absent in the IR: proto3
 * `optional` scalars are undefined when unset, unset messages arrive as null
 * from the runtime loader, enum 0 (`*_UNSPECIFIED`) means "not given".
 */
import type { ErrorPolicy, PlanGraph, PlanInput, PlanNode, RetryPolicy } from '../ir.js';
import {
  WIRE_ENUMS,
  type CachePolicyWire,
  type ErrorPolicyWire,
  type MapBodyWire,
  type PlanGraphWire,
  type PlanInputWire,
  type PlanNodeWire,
  type RetryPolicyWire,
  type RouteWire,
  type WireEnumName,
  type WireStruct,
} from './plan-wire.types.js';

type Route = NonNullable<PlanNode['routes']>[number];
type MapBody = NonNullable<PlanNode['body']>;
type CachePolicy = NonNullable<PlanNode['cache']>;
type Json = Record<string, unknown>;

/** A plan that cannot cross the wire intact; `field` is its IR path (e.g. `nodes[2].kind`). */
export class PlanWireError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'PlanWireError';
  }
}

/**
 * The wire form of a parsed plan. Throws PlanWireError for a value the wire
 * type cannot hold (an int32 out of range, an enum value the proto lacks)
 * rather than letting protobufjs truncate it silently.
 */
export function planToWire(plan: PlanGraph): PlanGraphWire {
  return {
    irVersion: int32(plan.irVersion, 'irVersion'),
    version: int32(plan.version, 'version'),
    id: plan.id,
    name: plan.name,
    provenance: plan.provenance && {
      frontEnd: enumToWire('FrontEnd', plan.provenance.frontEnd, 'provenance.frontEnd'),
      sourceId: plan.provenance.sourceId,
      sourceVersion: plan.provenance.sourceVersion,
    },
    executionMode: enumToWire('ExecutionMode', plan.executionMode, 'executionMode'),
    runContext: enumToWire('RunContext', plan.runContext, 'runContext'),
    approvalPolicy: enumToWire('ApprovalPolicy', plan.approvalPolicy, 'approvalPolicy'),
    inputs: plan.inputs.map(inputToWire),
    nodes: plan.nodes.map((n, i) => nodeToWire(n, `nodes[${i}]`)),
    output: plan.output,
    metadata: plan.metadata,
  };
}

/**
 * The IR object shape of a wire plan, not yet validated: parse the result with
 * `PlanGraphSchema` (zod errors then name IR paths). null/undefined (no plan
 * sent) comes back as undefined. Throws PlanWireError only for a
 * `default_json` that is not JSON text.
 */
export function planFromWire(wire: PlanGraphWire | null | undefined): unknown {
  if (wire == null) return undefined;
  return defined({
    irVersion: wire.irVersion ?? undefined,
    version: wire.version ?? undefined,
    id: wire.id ?? undefined,
    name: wire.name ?? undefined,
    provenance:
      wire.provenance == null
        ? undefined
        : defined({
            frontEnd: enumFromWire('FrontEnd', wire.provenance.frontEnd),
            sourceId: wire.provenance.sourceId ?? undefined,
            sourceVersion: wire.provenance.sourceVersion ?? undefined,
          }),
    executionMode: enumFromWire('ExecutionMode', wire.executionMode),
    runContext: enumFromWire('RunContext', wire.runContext),
    approvalPolicy: enumFromWire('ApprovalPolicy', wire.approvalPolicy),
    inputs: (wire.inputs ?? []).map((w, i) => inputFromWire(w, `inputs[${i}]`)),
    nodes: (wire.nodes ?? []).map(nodeFromWire),
    output: struct(wire.output),
    metadata: struct(wire.metadata),
  });
}

function inputToWire(input: PlanInput): PlanInputWire {
  return {
    name: input.name,
    type: input.type,
    description: input.description,
    required: input.required,
    defaultJson: input.default === undefined ? undefined : JSON.stringify(input.default),
    extractFrom: input.extractFrom,
    enumJson: input.enum === undefined ? undefined : JSON.stringify(input.enum),
  };
}

function inputFromWire(w: PlanInputWire, path: string): Json {
  let value: unknown;
  if (w.defaultJson != null) {
    try {
      value = JSON.parse(w.defaultJson);
    } catch {
      throw new PlanWireError(`${path}.default`, 'default_json must be JSON text');
    }
  }
  let allowed: unknown;
  if (w.enumJson != null) {
    try {
      allowed = JSON.parse(w.enumJson);
    } catch {
      throw new PlanWireError(`${path}.enum`, 'enum_json must be JSON text');
    }
  }
  return defined({
    name: w.name,
    type: w.type ?? undefined,
    enum: allowed,
    description: w.description ?? undefined,
    required: w.required ?? undefined,
    default: value,
    extractFrom: w.extractFrom ?? undefined,
  });
}

function nodeToWire(n: PlanNode, path: string): PlanNodeWire {
  return {
    id: n.id,
    kind: enumToWire('NodeKind', n.kind, `${path}.kind`),
    action: n.action,
    description: n.description,
    inputs: n.inputs,
    params: n.params,
    condition: n.condition,
    conditionDialect: enumToWire('ConditionDialect', n.conditionDialect, `${path}.conditionDialect`),
    outputKey: n.outputKey,
    inputSchema: n.inputSchema,
    outputSchema: n.outputSchema,
    errorPolicy: n.errorPolicy && errorPolicyToWire(n.errorPolicy, `${path}.errorPolicy`),
    cache: n.cache && cacheToWire(n.cache),
    dependsOn: n.dependsOn,
    routes: (n.routes ?? []).map((r, k) => routeToWire(r, `${path}.routes[${k}]`)),
    elseTo: n.elseTo ?? [],
    body: n.body && bodyToWire(n.body, `${path}.body`),
    fallbackFor: n.fallbackFor,
    capabilityId: n.capabilityId,
    source: n.source,
  };
}

function nodeFromWire(w: PlanNodeWire): Json {
  return defined({
    id: w.id,
    kind: enumFromWire('NodeKind', w.kind),
    action: w.action ?? undefined,
    description: w.description ?? undefined,
    inputs: struct(w.inputs),
    params: struct(w.params),
    condition: w.condition ?? undefined,
    conditionDialect: enumFromWire('ConditionDialect', w.conditionDialect),
    outputKey: w.outputKey ?? undefined,
    inputSchema: struct(w.inputSchema),
    outputSchema: struct(w.outputSchema),
    errorPolicy: w.errorPolicy == null ? undefined : errorPolicyFromWire(w.errorPolicy),
    cache: w.cache == null ? undefined : { key: w.cache.key, ttlSeconds: int64FromWire(w.cache.ttlSeconds) },
    dependsOn: w.dependsOn ?? undefined,
    // A repeated field cannot be absent: empty reads as "no routes", as the IR treats it.
    routes: w.routes?.length ? w.routes.map(routeFromWire) : undefined,
    elseTo: w.elseTo?.length ? w.elseTo : undefined,
    body: w.body == null ? undefined : bodyFromWire(w.body),
    fallbackFor: w.fallbackFor ?? undefined,
    capabilityId: w.capabilityId ?? undefined,
    source: w.source ?? undefined,
  });
}

function errorPolicyToWire(p: ErrorPolicy, path: string): ErrorPolicyWire {
  return {
    onError: enumToWire('OnError', p.onError, `${path}.onError`),
    retry: p.retry && retryToWire(p.retry, `${path}.retry`),
    fallback: p.fallback,
    rollback: p.rollback,
    rollbackOnError: p.rollbackOnError,
    timeoutMs: int64ToWire(p.timeoutMs),
  };
}

function errorPolicyFromWire(w: ErrorPolicyWire): Json {
  return defined({
    onError: enumFromWire('OnError', w.onError),
    retry: w.retry == null ? undefined : retryFromWire(w.retry),
    fallback: w.fallback ?? undefined,
    rollback: struct(w.rollback),
    rollbackOnError: w.rollbackOnError ?? undefined,
    timeoutMs: int64FromWire(w.timeoutMs),
  });
}

function retryToWire(r: RetryPolicy, path: string): RetryPolicyWire {
  return {
    maxRetries: int32(r.maxRetries, `${path}.maxRetries`),
    backoffMs: int64ToWire(r.backoffMs),
    multiplier: r.multiplier,
    maxBackoffMs: int64ToWire(r.maxBackoffMs),
    retryableCodes: r.retryableCodes,
  };
}

function retryFromWire(w: RetryPolicyWire): Json {
  return defined({
    maxRetries: w.maxRetries ?? undefined,
    backoffMs: int64FromWire(w.backoffMs),
    multiplier: w.multiplier ?? undefined,
    maxBackoffMs: int64FromWire(w.maxBackoffMs),
    retryableCodes: w.retryableCodes ?? undefined,
  });
}

function cacheToWire(c: CachePolicy): CachePolicyWire {
  return { key: c.key, ttlSeconds: String(c.ttlSeconds) };
}

function routeToWire(r: Route, path: string): RouteWire {
  return { condition: r.condition, conditionDialect: enumToWire('ConditionDialect', r.conditionDialect, `${path}.conditionDialect`), to: r.to };
}

function routeFromWire(w: RouteWire): Json {
  return defined({ condition: w.condition, conditionDialect: enumFromWire('ConditionDialect', w.conditionDialect), to: w.to });
}

function bodyToWire(b: MapBody, path: string): MapBodyWire {
  return {
    nodes: b.nodes.map((n, i) => nodeToWire(n, `${path}.nodes[${i}]`)),
    itemsFrom: b.itemsFrom,
    maxIterations: int32(b.maxIterations, `${path}.maxIterations`),
    concurrency: int32(b.concurrency, `${path}.concurrency`),
    continueOnError: b.continueOnError,
  };
}

function bodyFromWire(w: MapBodyWire): Json {
  return defined({
    nodes: (w.nodes ?? []).map(nodeFromWire),
    itemsFrom: w.itemsFrom ?? undefined,
    maxIterations: w.maxIterations ?? undefined,
    concurrency: w.concurrency ?? undefined,
    continueOnError: w.continueOnError ?? undefined,
  });
}

function enumToWire(name: WireEnumName, value: string | undefined, path: string): number {
  if (value === undefined) return 0;
  const index = (WIRE_ENUMS[name] as readonly string[]).indexOf(value);
  if (index < 0) throw new PlanWireError(path, `${JSON.stringify(value)} has no ${name} value on the wire`);
  return index + 1;
}

/** 0 = unset; an unknown number is passed on so the IR schema rejects it with its path. */
function enumFromWire(name: WireEnumName, value: number | null | undefined): unknown {
  if (value == null || value === 0) return undefined;
  return WIRE_ENUMS[name][value - 1] ?? value;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function int32(value: number | undefined, path: string): number | undefined {
  if (value !== undefined && !(Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX)) {
    throw new PlanWireError(path, `${value} does not fit the wire's int32`);
  }
  return value;
}

function int64ToWire(value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** int64 arrives as a decimal string (longs: String); a number is accepted too. */
function int64FromWire(value: string | number | null | undefined): number | undefined {
  return value == null ? undefined : Number(value);
}

/** Unset Struct fields arrive as null from the runtime loader. */
function struct(value: WireStruct | null): Json | undefined {
  return value ?? undefined;
}

/** Drops keys whose value is undefined, so "absent" stays absent after parsing. */
function defined(obj: Json): Json {
  for (const key of Object.keys(obj)) if (obj[key] === undefined) delete obj[key];
  return obj;
}
