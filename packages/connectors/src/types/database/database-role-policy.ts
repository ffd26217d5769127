/**
 * Which database roles a `database` connector refuses to run as.
 *
 * A READ ONLY transaction stops writes to tables, not what a privileged role
 * can do outside them: a superuser reads server files (`pg_read_file`), runs
 * programs (`COPY … TO PROGRAM`) and reads every schema. So before a
 * connection is used, the runner asks the server which roles the login role
 * is a member of (directly or through other roles: a member can `SET ROLE` to
 * any of them) and refuses the connection when one of them is privileged:
 *
 * - `rolsuper`: a superuser can do everything above;
 * - `pg_read_server_files`, `pg_write_server_files`,
 *   `pg_execute_server_program`: server files and programs (`pg_read_file`,
 *   `COPY … TO/FROM PROGRAM`, `lo_import`);
 * - `pg_signal_backend`: cancels and terminates other sessions (also inside a
 *   read-only transaction);
 * - `pg_read_all_data`, `pg_write_all_data` (PostgreSQL 14+): SELECT (and
 *   write) on every table of every schema, whatever the grants say;
 * - `rolcreaterole`: up to PostgreSQL 15 a CREATEROLE role can grant itself
 *   membership in the roles above, so it is as good as having them;
 * - `rolbypassrls`: reads rows that row-level security policies hide;
 * - `rolreplication`: can stream every change of every table (replication
 *   connections, logical decoding) whatever the grants say.
 *
 * A connector needs none of these: a role with LOGIN, CONNECT on the database,
 * USAGE on its schemas and SELECT on its tables is enough.
 */

/** Predefined roles that reach outside the database or into other sessions. */
export const REFUSED_PREDEFINED_ROLES = [
  'pg_read_server_files',
  'pg_write_server_files',
  'pg_execute_server_program',
  'pg_signal_backend',
  'pg_read_all_data',
  'pg_write_all_data',
] as const;

/** One role the login role is a member of (itself included), as `pg_roles` describes it. */
export interface RoleMembership {
  rolname: string;
  rolsuper: boolean;
  rolcreaterole: boolean;
  rolbypassrls: boolean;
  rolreplication: boolean;
}

/** The SQL that lists the privileged roles `$1` (the predefined role names) the session user is a member of. */
export const PRIVILEGED_MEMBERSHIP_SQL = `SELECT session_user::text AS login, m.rolname::text AS rolname,
       m.rolsuper, m.rolcreaterole, m.rolbypassrls, m.rolreplication
  FROM pg_roles m
 WHERE pg_has_role(session_user, m.oid, 'MEMBER')
   AND (m.rolsuper OR m.rolcreaterole OR m.rolbypassrls OR m.rolreplication OR m.rolname = ANY($1::text[]))
 ORDER BY m.rolsuper DESC, m.rolname`;

/**
 * Why `login` must not be used, or `undefined` when none of `memberships` is
 * privileged. Names the role and the privilege and says what to do instead.
 */
export function privilegedRoleProblem(
  login: string,
  memberships: readonly RoleMembership[],
): string | undefined {
  const reasons: string[] = [];
  // The server counts a superuser as a member of every role: its own flag says it all.
  const self = memberships.find((m) => m.rolname === login);
  const considered = self?.rolsuper ? [self] : memberships;
  for (const m of considered) {
    const via = m.rolname === login ? '' : ` (through membership in "${m.rolname}")`;
    if (m.rolsuper) {
      reasons.push(`is a superuser (rolsuper)${via}`);
      continue;
    }
    if (m.rolcreaterole) reasons.push(`can create roles (rolcreaterole)${via}`);
    if (m.rolbypassrls) reasons.push(`bypasses row-level security (rolbypassrls)${via}`);
    if (m.rolreplication) reasons.push(`can replicate (rolreplication)${via}`);
    if ((REFUSED_PREDEFINED_ROLES as readonly string[]).includes(m.rolname)) {
      reasons.push(`is a member of ${m.rolname}`);
    }
  }
  if (reasons.length === 0) return undefined;
  return (
    `the database role "${login}" ${reasons.join(', ')}; database connectors refuse privileged roles ` +
    'because a read-only transaction does not stop them reading server files, running programs or reading other schemas. ' +
    'Connect with a least-privilege role that only has CONNECT, USAGE on the schemas and SELECT on the tables it needs'
  );
}
