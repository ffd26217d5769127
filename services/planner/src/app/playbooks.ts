/**
 * Playbook use cases: compile YAML to a PlanGraph (all validation results
 * returned; any error is INVALID_ARGUMENT naming step and field) and store
 * playbooks per owner.
 */
import { compilePlaybook, type CompileResult, type PlanGraph } from '@af/plan';
import { AppError, sqlRows, type ServiceKit } from '@af/service-kit';
import type { ActionAvailability } from './action-availability.js';

export interface StoredPlaybook {
  id: string;
  name: string;
  version: string;
  yaml: string;
  ownerUserId: string;
  createdAt: Date;
  updatedAt: Date;
}

const MAX_YAML_BYTES = 1024 * 1024;

export class Playbooks {
  constructor(
    private readonly kit: ServiceKit,
    /** Refuses plans naming actions this deployment does not serve; knows the plugin tools served. */
    private readonly actions?: ActionAvailability,
  ) {}

  compile(yaml: string): { plan: PlanGraph; results: CompileResult['results'] } {
    if (!yaml || !yaml.trim()) throw AppError.invalid('yaml', 'is required');
    if (Buffer.byteLength(yaml) > MAX_YAML_BYTES) throw AppError.invalid('yaml', `is larger than ${MAX_YAML_BYTES} bytes`);
    const result = this.actions ? compilePlaybook(yaml, { registry: this.actions.registry() }) : compilePlaybook(yaml);
    if (!result.ok) {
      const first = result.errors[0]!;
      throw new AppError('INVALID_ARGUMENT', `${first.field}: ${first.message}${result.errors.length > 1 ? ` (+${result.errors.length - 1} more)` : ''}`, {
        violations: result.errors.map((e) => ({
          field: e.field,
          reason: e.message,
          code: e.code,
          ...(e.suggestedFix ? { suggestedFix: e.suggestedFix } : {}),
        })),
      });
    }
    this.actions?.check(result.plan);
    return { plan: result.plan, results: result.results };
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
