/**
 * The privileged-role check of `pg-readonly.ts`: run once on every new
 * connection, before its first statement (see
 * `domain/types/database-role-policy.ts` for what is refused and why).
 */
import {
  PRIVILEGED_MEMBERSHIP_SQL,
  privilegedRoleProblem,
  REFUSED_PREDEFINED_ROLES,
  type RoleMembership,
} from '@af/connectors';
import { SqlRunnerError } from '@af/connectors';
import type { PgPoolClient } from './pg-readonly.driver.js';

interface MembershipRow extends RoleMembership {
  login: string;
}

/**
 * Connections already checked. Keyed by the pooled client object, which the
 * pool hands out again for as long as the connection lives: a new connection
 * (after an idle timeout, a reconnect, or a changed grant) is checked anew.
 */
const checked = new WeakSet<PgPoolClient>();

/**
 * Resolves when the connection's login role is not privileged; throws a
 * `refused` SqlRunnerError naming the role and the privilege otherwise.
 * Server errors of the check itself propagate as they are.
 */
export async function checkConnectionRole(client: PgPoolClient): Promise<void> {
  if (checked.has(client)) return;
  const result = await client.query(PRIVILEGED_MEMBERSHIP_SQL, [[...REFUSED_PREDEFINED_ROLES]]);
  const rows = result.rows as MembershipRow[];
  const login = rows[0]?.login;
  const problem = login === undefined ? undefined : privilegedRoleProblem(login, rows);
  if (problem !== undefined) throw new SqlRunnerError('refused', problem);
  checked.add(client);
}
