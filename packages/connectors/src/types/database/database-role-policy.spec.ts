import {
  privilegedRoleProblem,
  REFUSED_PREDEFINED_ROLES,
  type RoleMembership,
} from './database-role-policy.js';

const role = (rolname: string, flags: Partial<RoleMembership> = {}): RoleMembership => ({
  rolname,
  rolsuper: false,
  rolcreaterole: false,
  rolbypassrls: false,
  rolreplication: false,
  ...flags,
});

describe('privilegedRoleProblem', () => {
  it('accepts a role with no privileged membership', () => {
    expect(privilegedRoleProblem('reader', [])).toBeUndefined();
    expect(privilegedRoleProblem('reader', [role('reader')])).toBeUndefined();
  });

  it('refuses a superuser, naming the role and rolsuper only (a superuser is a member of every role)', () => {
    const problem = privilegedRoleProblem('postgres', [
      role('postgres', { rolsuper: true, rolcreaterole: true, rolbypassrls: true }),
      role('pg_read_server_files'),
      role('pg_execute_server_program'),
    ]);
    expect(problem).toMatch(/^the database role "postgres" is a superuser \(rolsuper\); /);
    expect(problem).not.toContain('pg_read_server_files');
    expect(problem).toContain('least-privilege role');
  });

  it.each(REFUSED_PREDEFINED_ROLES)('refuses a member of %s', (name) => {
    const problem = privilegedRoleProblem('etl', [role(name)]);
    expect(problem).toContain(`the database role "etl" is a member of ${name}`);
  });

  it('refuses CREATEROLE, BYPASSRLS and REPLICATION, on the role or through a role it belongs to', () => {
    expect(privilegedRoleProblem('r', [role('r', { rolcreaterole: true })])).toContain(
      'can create roles (rolcreaterole)',
    );
    expect(privilegedRoleProblem('r', [role('admins', { rolbypassrls: true })])).toContain(
      'bypasses row-level security (rolbypassrls) (through membership in "admins")',
    );
    expect(privilegedRoleProblem('r', [role('r', { rolreplication: true })])).toContain(
      'the database role "r" can replicate (rolreplication)',
    );
    expect(privilegedRoleProblem('r', [role('root_group', { rolsuper: true })])).toContain(
      'is a superuser (rolsuper) (through membership in "root_group")',
    );
  });

  it('lists every reason once', () => {
    const problem = privilegedRoleProblem('r', [role('pg_read_server_files'), role('pg_signal_backend')]);
    expect(problem).toContain('is a member of pg_read_server_files, is a member of pg_signal_backend;');
  });
});
