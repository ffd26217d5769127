/**
 * `assignmentDefaults` of a capability registration (flex spec §15.10): the
 * defaults operator tooling and the orchestrator use when a human capability
 * gets a task. Free-form (`role`, `maxNotifications`, …) except `assignees`,
 * the capability's holders: the user ids a human node of this capability is
 * routed to (together with the node's `params.assignees`). The orchestrator
 * reads them from the registry when a task opens, so a malformed list is
 * refused here, at registration, naming the field.
 */
import type { CapabilityRegistration, PlanIssue } from '@af/plan';

/** Most holders one capability may name; larger pools belong in a team. */
export const MAX_ASSIGNEES = 100;
const MAX_ID_LENGTH = 200;

/** Problems with `assignmentDefaults.assignees`; empty when it is absent or well-formed. */
export function assignmentDefaultsIssues(reg: Pick<CapabilityRegistration, 'agentType' | 'assignmentDefaults'>): PlanIssue[] {
  const defaults = reg.assignmentDefaults;
  if (!defaults || !('assignees' in defaults)) return [];
  const field = 'assignmentDefaults.assignees';
  const issue = (f: string, message: string): PlanIssue => ({ code: 'invalid_field', field: f, message: `${f}: ${message}` });
  const assignees = defaults.assignees;
  if (reg.agentType !== 'human') return [issue(field, `only human capabilities (agentType "human") have holders; this one is "${reg.agentType}"`)];
  if (!Array.isArray(assignees)) return [issue(field, `must be an array of user ids (non-empty strings), got ${describe(assignees)}`)];
  if (assignees.length > MAX_ASSIGNEES) return [issue(field, `must name at most ${MAX_ASSIGNEES} users, got ${assignees.length}`)];
  const issues: PlanIssue[] = [];
  assignees.forEach((a: unknown, i) => {
    const at = `${field}[${i}]`;
    if (typeof a !== 'string') issues.push(issue(at, `must be a user id (a non-empty string), got ${describe(a)}`));
    else if (a.trim() === '') issues.push(issue(at, 'must be a user id, not an empty string'));
    else if (a !== a.trim()) issues.push({ ...issue(at, 'must not start or end with whitespace'), suggestedFix: a.trim() });
    else if (a.length > MAX_ID_LENGTH) issues.push(issue(at, `must be at most ${MAX_ID_LENGTH} characters`));
    else if (assignees.indexOf(a) !== i) issues.push(issue(at, `user '${a}' is listed twice`));
  });
  return issues;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
}
