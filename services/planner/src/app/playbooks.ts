/**
 * Playbook use cases: compile YAML to a PlanGraph (all validation results
 * returned; any error is INVALID_ARGUMENT naming step, field, line and
 * column) and store playbooks per owner. `compile` checks the document
 * alone; `report` / `compileFor` add what depends on the deployment and the
 * caller (their connectors, whether a model is configured).
 */
import { CONFIGURE_MODEL_HINT, compilePlaybook, llmNodes, locateInYaml, type CompilePlaybookOptions, type CompileResult, type PlanGraph, type PlanIssue } from '@af/plan';
import { AppError, sqlRows, type FieldViolation, type ServiceKit } from '@af/service-kit';
import { noConnectorCatalog, type ConnectorCatalog } from '../infra/connector-catalog.js';

export interface StoredPlaybook {
  id: string;
  name: string;
  version: string;
  yaml: string;
  ownerUserId: string;
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

export class Playbooks {
  constructor(
    private readonly kit: ServiceKit,
    private readonly deps: PlaybookCheckDeps = {},
  ) {}

  /** The document alone (no caller, no deployment): throws INVALID_ARGUMENT with every error. */
  compile(yaml: string): { plan: PlanGraph; results: CompileResult['results'] } {
    requireYaml(yaml);
    const result = compilePlaybook(yaml);
    if (!result.ok) throw invalidPlaybook(result.errors);
    return { plan: result.plan, results: result.results };
  }

  /**
   * Every problem of `yaml` for this caller in one round: the document's
   * errors and warnings, the connectors it names checked against the
   * caller's (a warning when connector-runtime cannot be asked), and a
   * warning per llm step when no model is configured.
   */
  async report(yaml: string, principal: { userId: string; teamIds: readonly string[] }): Promise<PlaybookReport> {
    requireYaml(yaml);
    const opts: CompilePlaybookOptions = {};
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
    // Further deployment checks (e.g. whether a service of this deployment serves each action) go here, each in
    // its own module, adding to `errors` / `warnings` (positions via locateInYaml); compileFor and
    // CompilePlaybook then refuse or report them like the document's own.
    const valid = errors.length === 0 && result.ok;
    return { valid, ...(valid && result.ok ? { plan: result.plan } : {}), errors, warnings, results: result.results };
  }

  /** `report`, throwing INVALID_ARGUMENT (violations with field, step, line and column) when there are errors. */
  async compileFor(yaml: string, principal: { userId: string; teamIds: readonly string[] }): Promise<PlaybookReport & { plan: PlanGraph }> {
    const report = await this.report(yaml, principal);
    if (!report.valid || !report.plan) throw invalidPlaybook(report.errors);
    return { ...report, plan: report.plan };
  }

  async create(ownerUserId: string, yaml: string, idempotencyKey: string): Promise<StoredPlaybook> {
    requireUser(ownerUserId);
    const { plan } = this.compile(yaml);
    if (!plan.id) throw AppError.invalid('id', 'a stored playbook needs an id');
    const rows = await sqlRows(this.kit.db, 
      `INSERT INTO playbooks (owner_user_id, id, name, version, yaml, idempotency_key) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (owner_user_id, id) DO UPDATE SET yaml = EXCLUDED.yaml, name = EXCLUDED.name, version = EXCLUDED.version,
         idempotency_key = EXCLUDED.idempotency_key, updated_at = now()
       RETURNING *`,
      [ownerUserId, plan.id, plan.name ?? plan.id, plan.provenance?.sourceVersion ?? '1.0', yaml, idempotencyKey || null],
    );
    return toPlaybook(rows[0]);
  }

  async get(ownerUserId: string, id: string): Promise<StoredPlaybook> {
    requireUser(ownerUserId);
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
  return new AppError('INVALID_ARGUMENT', `${first.field ? `${first.field}: ` : ''}${first.message}${at}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}`, {
    violations: errors.map(issueViolation),
  });
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
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}
