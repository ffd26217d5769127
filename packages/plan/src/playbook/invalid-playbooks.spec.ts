import { compilePlaybook, connectorLookup, type PlanIssue } from '../index.js';
import { fixtureJson, fixtureYaml } from '../../test/fixture-loader.js';

interface Case {
  name: string;
  connectors?: boolean;
  playbook: string;
  expect: Partial<PlanIssue>;
}

const cases = fixtureYaml<Case[]>('playbooks/invalid-cases.yaml');
const connectors = connectorLookup(fixtureJson<unknown[]>('connectors.json'));

describe('invalid playbooks (test/fixtures/playbooks/invalid-cases.yaml)', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThan(40));

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = compilePlaybook(c.playbook, c.connectors ? { connectors } : {});
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const match = result.errors.find((e) => Object.entries(c.expect).every(([k, v]) => (e as unknown as Record<string, unknown>)[k] === v));
    if (!match) throw new Error(`no error matching ${JSON.stringify(c.expect)} in ${JSON.stringify(result.errors, null, 2)}`);
    expect(match.message.length).toBeGreaterThan(10);
    // Every issue that points into the document has a line.
    for (const e of result.errors) if (e.field !== '') expect(e.line).toEqual(expect.any(Number));
  });
});
