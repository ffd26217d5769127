/**
 * Step-link rule 5 for a playbook attached to a profile: every connector a
 * step calls (`call_connector`, `detect_new_data`, in map bodies too) must
 * be bound to that profile, and the binding must allow the endpoint. A
 * connector named through a `{reference}` is decided at run time and is not
 * checked here.
 */
import type { PlanGraph, PlanNode } from '@af/plan';

export interface ProfileBinding {
  connectorId: string;
  /** Empty: every endpoint. */
  allowedEndpoints: readonly string[];
  /** `active` | `auth_failed` | `disabled`. */
  status: string;
}

export interface ConnectorStep {
  /** The node id (the playbook step's name). */
  step: string;
  connector: string;
  endpoint?: string;
  /** Where the connector is named, for the error's field path. */
  field: string;
}

export interface BindingIssue {
  step: string;
  connector: string;
  field: string;
  code: 'connector_not_bound' | 'binding_disabled' | 'endpoint_not_allowed';
  message: string;
}

const literal = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' && !v.includes('{') ? v : undefined);

/** The connector calls of a plan, nested bodies included, in node order. */
export function connectorSteps(plan: Pick<PlanGraph, 'nodes'>): ConnectorStep[] {
  const out: ConnectorStep[] = [];
  const visit = (nodes: readonly PlanNode[]) => {
    for (const n of nodes) {
      if (n.action === 'call_connector') {
        const connector = literal(n.params?.connector);
        const endpoint = literal(n.params?.endpoint);
        if (connector) out.push({ step: n.id, connector, ...(endpoint ? { endpoint } : {}), field: 'connector' });
      } else if (n.action === 'detect_new_data') {
        const connector = literal(n.inputs?.connector);
        const endpoint = literal(n.inputs?.endpoint);
        if (connector) out.push({ step: n.id, connector, ...(endpoint ? { endpoint } : {}), field: 'inputs.connector' });
      }
      if (n.body?.nodes) visit(n.body.nodes);
    }
  };
  visit(plan.nodes);
  return out;
}

export function unboundConnectorIssues(plan: Pick<PlanGraph, 'nodes'>, profileHandle: string, bindings: readonly ProfileBinding[]): BindingIssue[] {
  const byConnector = new Map(bindings.map((b) => [b.connectorId, b]));
  const bound = [...byConnector.keys()].sort();
  const issues: BindingIssue[] = [];
  for (const s of connectorSteps(plan)) {
    const b = byConnector.get(s.connector);
    const base = { step: s.step, connector: s.connector, field: s.field };
    if (!b) {
      issues.push({
        ...base,
        code: 'connector_not_bound',
        message: `step '${s.step}' calls connector '${s.connector}', which is not bound to agent '@${profileHandle}' (${bound.length ? `bound: ${bound.join(', ')}` : 'it has no connectors bound'}); bind it with PUT /api/agent-factory/connectors/${s.connector}/bindings/{profile_id}`,
      });
    } else if (b.status === 'disabled') {
      issues.push({ ...base, code: 'binding_disabled', message: `step '${s.step}' calls connector '${s.connector}', whose binding to agent '@${profileHandle}' is disabled` });
    } else if (s.endpoint && b.allowedEndpoints.length > 0 && !b.allowedEndpoints.includes(s.endpoint)) {
      issues.push({
        ...base,
        field: s.field === 'connector' ? 'endpoint' : 'inputs.endpoint',
        code: 'endpoint_not_allowed',
        message: `step '${s.step}' calls '${s.connector}/${s.endpoint}', but agent '@${profileHandle}' may call only ${b.allowedEndpoints.join(', ')} of that connector`,
      });
    }
  }
  return issues;
}
