import { actionServicesEnvShape, baseEnvSchema, grpcAddress } from '@af/service-kit';
import { llmEnvShape } from '@af/llm';
import { CAPABILITY_EGRESS, parseEgressAllowList } from '@af/egress';
import { z } from 'zod';

/** An allow-list variable: every bad entry is an issue naming it (the config error names the variable). */
export const capabilityEgressAllow = () =>
  z
    .string()
    .default('')
    .superRefine((value, ctx) => {
      const parsed = parseEgressAllowList(value, CAPABILITY_EGRESS);
      if (!parsed.ok) for (const message of parsed.errors) ctx.addIssue({ code: 'custom', message });
    });

const CONNECTOR_ID = /^[a-z0-9][a-z0-9-]*$/;

/**
 * `id=n,id2=m`: per-connector limits overriding CONNECTOR_CONCURRENCY. Each
 * entry must be a connector id and a positive integer; errors name the entry.
 */
export const connectorOverrides = z
  .string()
  .default('')
  .transform((text, ctx) => {
    const out = new Map<string, number>();
    for (const [i, raw] of text.split(',').entries()) {
      const entry = raw.trim();
      if (!entry) continue;
      const m = /^([^=\s]+)\s*=\s*(\d+)$/.exec(entry);
      if (!m || !CONNECTOR_ID.test(m[1]!) || Number(m[2]) < 1 || Number(m[2]) > 1000) {
        ctx.addIssue({ code: 'custom', message: `entry ${i + 1} '${entry}' must be <connector-id>=<1..1000>, e.g. fec-api=2` });
        continue;
      }
      if (out.has(m[1]!)) ctx.addIssue({ code: 'custom', message: `connector '${m[1]}' is listed twice` });
      out.set(m[1]!, Number(m[2]));
    }
    return out;
  });

/** Orchestrator configuration (env names are the keys). */
export const orchestratorEnvSchema = baseEnvSchema.extend({
  GRPC_PORT: z.coerce.number().int().min(1).max(65535).default(50052),
  /** gRPC address of connector-runtime. */
  CONNECTOR_RUNTIME_URL: grpcAddress(),
  /** gRPC address of the planner: subflow nodes that name a playbook compile it there. Unset: such nodes fail with FAILED_PRECONDITION. */
  PLANNER_URL: grpcAddress().optional(),
  /**
   * gRPC address of the approval service, where approval, human and clarify
   * nodes open their requests. Unset: such nodes fail with FAILED_PRECONDITION.
   */
  APPROVAL_URL: grpcAddress().optional(),
  /** Waits on the approval service still undecided after this long are looked up there (a lost event cannot strand a run). */
  APPROVAL_RECONCILE_MS: z.coerce.number().int().min(200).max(3_600_000).default(5_000),
  /** How long a replica owns a run without renewing; a dead replica's runs are taken over after this. */
  RUN_LEASE_MS: z.coerce.number().int().min(500).max(600_000).default(15_000),
  /** Nodes of one run executing at once (map iterations' nodes included). */
  RUN_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Runs one replica executes at once. */
  RUNS_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(64),
  /**
   * Settlements of pure nodes (transforms, routes, skips, decided waits) one
   * run may hold in memory and commit with its next write — the next
   * side-effecting node's start, a wait or the finish — instead of one
   * commit each; a crash before that commit only recomputes them. 0: every
   * node commits on its own before the next one starts.
   */
  PURE_NODE_BATCH: z.coerce.number().int().min(0).max(10_000).default(256),
  /**
   * A read-only served action (one whose service lists it without side
   * effects) that answers within this many ms has its start committed with
   * its completion, in one statement; a slower one's start is committed when
   * this ends. A crash before that commit only calls it again. 0: its start is
   * committed before the call. Needs PURE_NODE_BATCH > 0.
   */
  READ_ONLY_START_GRACE_MS: z.coerce.number().int().min(0).max(10_000).default(50),
  /** Calls to one connector (per owner) in flight at once on one replica, across all its runs. */
  CONNECTOR_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(4),
  /** Per-connector overrides of CONNECTOR_CONCURRENCY: `fec-api=2,slow-api=1`. */
  CONNECTOR_CONCURRENCY_OVERRIDES: connectorOverrides,
  /** Items a map node iterates when its body sets no maxIterations (extra items are dropped, with a map_truncated frame). */
  MAP_MAX_ITERATIONS: z.coerce.number().int().min(1).max(100_000).default(1000),
  /** How deep subflows may nest (a run started by a caller has depth 0). */
  SUBFLOW_MAX_DEPTH: z.coerce.number().int().min(0).max(50).default(5),
  /** How long node outputs of finished runs are kept (the event log keeps metadata only). */
  NODE_OUTPUT_RETENTION_HOURS: z.coerce.number().min(0).max(24 * 365 * 10).default(24 * 7),
  /**
   * Non-public addresses capability agent endpoints may be dialled at (same
   * syntax as CONNECTOR_EGRESS_ALLOW; plain entries open to every tenant, an
   * entry for one user's capability is `<owner-user-id>/<capability-id>=entry`).
   * Checked on every call, against every address the endpoint's host
   * resolves to. Empty: public addresses only. See docs/security/egress.md.
   */
  CAPABILITY_EGRESS_ALLOW: capabilityEgressAllow(),
  ...llmEnvShape,
  /** Deadline of one connector call when the node sets none. */
  NODE_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /** ACTION_SERVICES, ACTION_REFRESH_MS: the services whose actions tool nodes run, and how often they are asked what they serve. */
  ...actionServicesEnvShape,
  /** Most nodes a plan may have (map bodies and inline subflows count); StartRun / replans refuse larger plans. */
  PLAN_MAX_NODES: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /** Steps one condition evaluation may take (quantifier elements, array scans); past it the node / policy fails with condition_budget_exceeded. */
  CONDITION_MAX_STEPS: z.coerce.number().int().min(1).default(100_000),
  /** How deep some()/all()/none() may nest inside one another's predicate; deeper conditions are refused at StartRun. */
  CONDITION_MAX_QUANTIFIER_DEPTH: z.coerce.number().int().min(0).max(10).default(3),
  /** Largest run `inputs` accepted by StartRun (bytes of JSON); larger is PAYLOAD_TOO_LARGE naming `inputs`. */
  RUN_INPUT_MAX_BYTES: z.coerce.number().int().min(1024).default(256 * 1024),
  /** Largest output one node may produce (bytes of JSON); a larger output fails the node instead of being stored. */
  NODE_OUTPUT_MAX_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  // --- schedules (docs/schedules.md) ---
  /** Whether this replica dispatches due schedule fires (any number of replicas may; each fire starts one run). */
  SCHEDULE_DISPATCH: z.stringbool().default(true),
  /** How often a replica looks for due fires. */
  SCHEDULE_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Schedules one claim locks (one transaction); their runs are created by one statement. */
  SCHEDULE_BATCH: z.coerce.number().int().min(1).max(1000).default(500),
  /** Claims one replica works on at once. */
  SCHEDULE_WORKERS: z.coerce.number().int().min(1).max(32).default(2),
  /** How soon a buffered fire is looked at again while its schedule still has active runs. */
  SCHEDULE_BUFFER_RECHECK_MS: z.coerce.number().int().min(50).max(600_000).default(2000),
});
export type OrchestratorConfig = z.infer<typeof orchestratorEnvSchema>;
