/**
 * Playbook use cases: compile YAML to a PlanGraph (all validation results
 * returned; any error is INVALID_ARGUMENT naming step, field, line and
 * column) and store playbooks per owner, every version kept
 * (`playbook_versions`; a run records the revision it was compiled from, see
 * compileStored). `compile` checks the document alone; `report` /
 * `compileFor` add what depends on the deployment and the caller (their
 * connectors, whether a model is configured).
 */
import { CONFIGURE_MODEL_HINT, compilePlaybook, llmNodes, locateInYaml, type CompilePlaybookOptions, type CompileResult, type PlanGraph, type PlanIssue } from '@af/plan';
import { AppError, sqlRows, type FieldViolation, type ServiceKit } from '@af/service-kit';
import { noConnectorCatalog, type ConnectorCatalog } from '../infra/connector-catalog.js';
import type { ActionAvailability } from './action-availability.js';

export interface StoredPlaybook {
  id: string;
  name: string;
  version: string;
  yaml: string;
  ownerUserId: string;
  /** 1 on create, +1 on every change of the YAML. */
  revision: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What validation depends on beyond the document. */
export interface PlaybookCheckDeps {
  /** The caller's connectors and bindings (default: not configured → a warning when a playbook names a connector). */
  connectors?: ConnectorCatalog;
  /** Whether a chat model is configured (default false → llm steps are a warning). */
  hasModel?: boolean;
}

/** Everything validation found; `plan` only when there are no errors. */
export interface PlaybookReport {
  valid: boolean;
  plan?: PlanGraph;
  errors: PlanIssue[];
  warnings: PlanIssue[];
  results: CompileResult['results'];
}

const MAX_YAML_BYTES = 1024 * 1024;
/** A `connector:` key anywhere: only then are the caller's connectors looked up. */
const NAMES_A_CONNECTOR = /(^|[\s{,])connector\s*:/m;

/**
 * What still uses a playbook (schedules, agent profiles) and so refuses its
 * deletion. None of those exist in this deployment yet: the default finds
 * nothing; a store that has them plugs its look-up in here.
 */
export type PlaybookUsers = (ownerUserId: string, id: string) => Promise<Array<{ kind: 'schedule' | 'profile'; id: string }>>;

export const noPlaybookUsers: PlaybookUsers = async () => [];

/** A version row shaped like a playbook row: created when the playbook was, updated when the version was stored. */
const VERSION_COLUMNS = 'v.owner_user_id, v.id, v.revision, v.name, v.version, v.yaml, p.created_at, v.created_at AS updated_at';

export class Playbooks {
  constructor(
    private readonly kit: ServiceKit,
    private readonly users: PlaybookUsers = noPlaybookUsers,
    /** Refuses plans naming actions this deployment does not serve; knows the plugin tools served. */
    private readonly actions?: ActionAvailability,
    private readonly deps: PlaybookCheckDeps = {},
  ) {}

  /**
   * The document and the actions this deployment serves (no caller): throws INVALID_ARGUMENT with every error.
   * `autoEnrichGraph`: the agent profile running it sets `output_config.auto_enrich_graph` (enrichment nodes after its connector steps).
   */
  async compile(yaml: string, opts: { autoEnrichGraph?: boolean } = {}): Promise<{ plan: PlanGraph; results: CompileResult['results'] }> {
    requireYaml(yaml);
    const result = compilePlaybook(yaml, {
      ...(this.actions ? { registry: this.actions.registry() } : {}),
      hasModel: this.deps.hasModel ?? false,
      ...(opts.autoEnrichGraph ? { autoEnrichGraph: true } : {}),
    });
    if (!result.ok) throw invalidPlaybook(result.errors);
    await this.actions?.check(result.plan);
    return { plan: result.plan, results: result.results };
  }

  /**
   * Every problem of `yaml` for this caller in one round: the document's
   * errors and warnings, the connectors it names checked against the
   * caller's (a warning when connector-runtime cannot be asked), and a
   * warning per llm step when no model is configured.
   */
  async report(yaml: string, principal: { userId: string; teamIds: readonly string[] }, extra: { autoEnrichGraph?: boolean } = {}): Promise<PlaybookReport> {
    requireYaml(yaml);
    const opts: CompilePlaybookOptions = {
      ...(this.actions ? { registry: this.actions.registry() } : {}),
      hasModel: this.deps.hasModel ?? false,
      ...(extra.autoEnrichGraph ? { autoEnrichGraph: true } : {}),
    };
    const extraWarnings: PlanIssue[] = [];
    if (NAMES_A_CONNECTOR.test(yaml) && principal.userId) {
      const catalog = await (this.deps.connectors ?? noConnectorCatalog).forCaller(principal);
      if ('lookup' in catalog) opts.connectors = catalog.lookup;
      else extraWarnings.push({ code: 'connectors_not_checked', field: '', message: `the connectors and endpoints this playbook names were not checked: ${catalog.unavailable}` });
    }
    const result = compilePlaybook(yaml, opts);
    const errors: PlanIssue[] = result.ok ? [] : [...result.errors];
    const warnings: PlanIssue[] = [...extraWarnings, ...result.warnings];
    if (result.ok && !this.deps.hasModel) warnings.push(...locateInYaml(yaml, modelWarnings(result.plan)));
    // Deployment checks, each in its own module, add to `errors` / `warnings` here (positions via locateInYaml);
    // compileFor and CompilePlaybook then refuse or report them like the document's own.
    if (result.ok) errors.push(...locateInYaml(yaml, await unavailableActionIssues(this.actions, result.plan)));
    const valid = errors.length === 0 && result.ok;
    return { valid, ...(valid && result.ok ? { plan: result.plan } : {}), errors, warnings, results: result.results };
  }

  /** `report`, throwing INVALID_ARGUMENT (violations with field, step, line and column) when there are errors. */
  async compileFor(
    yaml: string,
    principal: { userId: string; teamIds: readonly string[] },
    extra: { autoEnrichGraph?: boolean } = {},
  ): Promise<PlaybookReport & { plan: PlanGraph }> {
    const report = await this.report(yaml, principal, extra);
    if (!report.valid || !report.plan) throw invalidPlaybook(report.errors);
    return { ...report, plan: report.plan };
  }

  /** Stores the playbook: revision 1, or a new revision of the caller's playbook with that id (nothing when the YAML is unchanged). */
  async create(ownerUserId: string, yaml: string, idempotencyKey: string): Promise<StoredPlaybook> {
    requireUser(ownerUserId);
    const { plan } = await this.compile(yaml);
    if (!plan.id) throw AppError.invalid('id', 'a stored playbook needs an id');
    const rows = await sqlRows(
      this.kit.db,
      `WITH head AS (
         INSERT INTO playbooks (owner_user_id, id, name, version, yaml, idempotency_key, revision) VALUES ($1, $2, $3, $4, $5, $6, 1)
         ON CONFLICT (owner_user_id, id) DO UPDATE SET yaml = EXCLUDED.yaml, name = EXCLUDED.name, version = EXCLUDED.version,
           idempotency_key = EXCLUDED.idempotency_key, updated_at = now(), revision = playbooks.revision + 1
         WHERE playbooks.yaml IS DISTINCT FROM EXCLUDED.yaml
         RETURNING *
       ), saved AS (
         INSERT INTO playbook_versions (owner_user_id, id, revision, name, version, yaml) SELECT owner_user_id, id, revision, name, version, yaml FROM head
       )
       SELECT * FROM head`,
      [ownerUserId, plan.id, plan.name ?? plan.id, plan.provenance?.sourceVersion ?? '1.0', yaml, idempotencyKey || null],
    );
    return rows[0] ? toPlaybook(rows[0]) : this.get(ownerUserId, plan.id);
  }

  /**
   * A new version of the caller's playbook `id` (NOT_FOUND when they have
   * none); the YAML's own `id` must be `id`. Unchanged YAML stores nothing.
   */
  async update(ownerUserId: string, id: string, yaml: string, idempotencyKey: string): Promise<{ playbook: StoredPlaybook; changed: boolean }> {
    requireUser(ownerUserId);
    if (!id) throw AppError.invalid('id', 'is required');
    const { plan } = await this.compile(yaml);
    if (plan.id !== id) {
      throw AppError.invalid('yaml.id', `is '${plan.id ?? ''}' but the playbook being updated is '${id}': the id in the YAML must match the path`, 'id_mismatch');
    }
    const rows = await sqlRows(
      this.kit.db,
      `WITH head AS (
         UPDATE playbooks SET yaml = $3, name = $4, version = $5, idempotency_key = $6, updated_at = now(), revision = revision + 1
         WHERE owner_user_id = $1 AND id = $2 AND yaml IS DISTINCT FROM $3
         RETURNING *
       ), saved AS (
         INSERT INTO playbook_versions (owner_user_id, id, revision, name, version, yaml) SELECT owner_user_id, id, revision, name, version, yaml FROM head
       )
       SELECT * FROM head`,
      [ownerUserId, id, yaml, plan.name ?? id, plan.provenance?.sourceVersion ?? '1.0', idempotencyKey || null],
    );
    if (rows[0]) return { playbook: toPlaybook(rows[0]), changed: true };
    return { playbook: await this.get(ownerUserId, id), changed: false };
  }

  /**
   * Removes the caller's playbook and every version (NOT_FOUND when they have
   * none; FAILED_PRECONDITION naming each schedule / profile that uses it).
   * Runs already started keep their compiled plan.
   */
  async delete(ownerUserId: string, id: string): Promise<number> {
    requireUser(ownerUserId);
    const users = await this.users(ownerUserId, id);
    if (users.length > 0) {
      throw new AppError('FAILED_PRECONDITION', `playbook '${id}' is used by ${users.map((u) => `${u.kind} '${u.id}'`).join(', ')}: remove it from them first`, {
        violations: users.map((u) => ({ field: `${u.kind}s`, reason: `${u.kind} '${u.id}' uses this playbook`, code: 'playbook_in_use' })),
      });
    }
    const rows = await sqlRows<{ n: string }>(
      this.kit.db,
      `WITH head AS (DELETE FROM playbooks WHERE owner_user_id = $1 AND id = $2 RETURNING id),
            old AS (DELETE FROM playbook_versions WHERE owner_user_id = $1 AND id = $2 AND EXISTS (SELECT 1 FROM head) RETURNING revision)
       SELECT (SELECT count(*) FROM head) AS head, (SELECT count(*) FROM old) AS n`,
      [ownerUserId, id],
    );
    if (Number((rows[0] as unknown as { head: string }).head) === 0) throw AppError.notFound('playbook', id);
    return Number(rows[0]!.n);
  }

  /** Every stored version of the caller's playbook, newest first. */
  async versions(ownerUserId: string, id: string): Promise<StoredPlaybook[]> {
    requireUser(ownerUserId);
    const rows = await sqlRows(
      this.kit.db,
      `SELECT ${VERSION_COLUMNS} FROM playbook_versions v JOIN playbooks p USING (owner_user_id, id)
       WHERE v.owner_user_id = $1 AND v.id = $2 ORDER BY v.revision DESC`,
      [ownerUserId, id],
    );
    if (rows.length === 0) throw AppError.notFound('playbook', id);
    return rows.map(toPlaybook);
  }

  /**
   * A stored playbook compiled: the latest version or `revision`. The plan
   * records the revision in `metadata.playbook_revision` (a replan compiles
   * the same one) and, for a dry run, `metadata.dry_run`.
   */
  async compileStored(
    ownerUserId: string,
    id: string,
    opts: {
      revision?: number;
      dryRun?: boolean;
      allowSideEffects?: boolean;
      caller?: { userId: string; teamIds: readonly string[] };
      /** Run by an agent profile whose `output_config.auto_enrich_graph` is set. */
      autoEnrichGraph?: boolean;
    } = {},
  ): Promise<{ plan: PlanGraph; results: CompileResult['results']; playbook: StoredPlaybook }> {
    const playbook = await this.get(ownerUserId, id, opts.revision);
    const extra = opts.autoEnrichGraph ? { autoEnrichGraph: true } : {};
    // With a caller (a run is about to start) the deployment checks apply too; the graph view needs the document only.
    const { plan, results } = opts.caller ? await this.compileFor(playbook.yaml, opts.caller, extra) : await this.compile(playbook.yaml, extra);
    const metadata: Record<string, unknown> = { ...(plan.metadata ?? {}), playbook_revision: playbook.revision };
    if (opts.dryRun) metadata.dry_run = { allow_side_effects: opts.allowSideEffects === true };
    return { plan: { ...plan, metadata }, results, playbook };
  }

  /** The caller's playbook: the latest version, or `revision` (NOT_FOUND naming it when there is no such version). */
  async get(ownerUserId: string, id: string, revision = 0): Promise<StoredPlaybook> {
    requireUser(ownerUserId);
    if (!Number.isInteger(revision) || revision < 0) throw AppError.invalid('revision', 'must be a positive integer (0 = the latest)');
    if (revision > 0) {
      const rows = await sqlRows(
        this.kit.db,
        `SELECT ${VERSION_COLUMNS} FROM playbook_versions v JOIN playbooks p USING (owner_user_id, id) WHERE v.owner_user_id = $1 AND v.id = $2 AND v.revision = $3`,
        [ownerUserId, id, revision],
      );
      if (!rows[0]) throw AppError.notFound('playbook version', `${id}@${revision}`);
      return toPlaybook(rows[0]);
    }
    const rows = await sqlRows(this.kit.db, 'SELECT * FROM playbooks WHERE owner_user_id = $1 AND id = $2', [ownerUserId, id]);
    if (!rows[0]) throw AppError.notFound('playbook', id);
    return toPlaybook(rows[0]);
  }

  async list(ownerUserId: string): Promise<StoredPlaybook[]> {
    requireUser(ownerUserId);
    const rows = await sqlRows(this.kit.db, 'SELECT * FROM playbooks WHERE owner_user_id = $1 ORDER BY id', [ownerUserId]);
    return rows.map(toPlaybook);
  }
}

function requireYaml(yaml: string): void {
  if (!yaml || !yaml.trim()) throw AppError.invalid('yaml', 'is required');
  if (Buffer.byteLength(yaml) > MAX_YAML_BYTES) throw AppError.invalid('yaml', `is larger than ${MAX_YAML_BYTES} bytes`);
}

/** A violation per error, with what a client needs to point at it and fix it. */
export function issueViolation(e: PlanIssue): FieldViolation {
  return {
    field: e.field,
    reason: e.message,
    code: e.code,
    ...(e.suggestedFix !== undefined ? { suggestedFix: e.suggestedFix } : {}),
    ...(e.step !== undefined ? { step: e.step } : {}),
    ...(e.line !== undefined ? { line: e.line } : {}),
    ...(e.column !== undefined ? { column: e.column } : {}),
  };
}

function invalidPlaybook(errors: readonly PlanIssue[]): AppError {
  const first = errors[0]!;
  const at = first.line !== undefined ? ` (line ${first.line})` : '';
  // Some issues' messages already start with their field; it is not repeated.
  const prefix = first.field && !first.message.startsWith(`${first.field}:`) ? `${first.field}: ` : '';
  return new AppError('INVALID_ARGUMENT', `${prefix}${first.message}${at}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}`, {
    violations: errors.map(issueViolation),
  });
}

/** `action_unavailable` (action-availability.ts) as issues, so validation reports them with the rest. */
async function unavailableActionIssues(actions: ActionAvailability | undefined, plan: PlanGraph): Promise<PlanIssue[]> {
  try {
    await actions?.check(plan);
    return [];
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'INVALID_ARGUMENT') throw err;
    const steps = new Map(plan.nodes.map((n) => [n.source, n.id] as const));
    return err.violations.map((v) => {
      const step = steps.get(v.field.replace(/\.action$/, ''));
      return { code: v.code ?? 'action_unavailable', field: v.field, message: v.reason, ...(step !== undefined ? { step } : {}) };
    });
  }
}

/** An llm step cannot run without a model: said at validation, refused when a run starts. */
function modelWarnings(plan: PlanGraph): PlanIssue[] {
  return llmNodes(plan.nodes).map((n) => ({
    code: 'no_model_configured',
    field: n.source ? `${n.source}.action` : '',
    step: n.id,
    message: `step '${n.id}' is an llm_task, but no LLM model is configured: a run of this playbook is refused at start until one is (${CONFIGURE_MODEL_HINT})`,
  }));
}

function requireUser(userId: string): void {
  if (!userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
}

function toPlaybook(r: Record<string, unknown>): StoredPlaybook {
  return {
    id: String(r.id),
    name: String(r.name),
    version: String(r.version),
    yaml: String(r.yaml),
    ownerUserId: String(r.owner_user_id),
    revision: Number(r.revision ?? 1),
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}
