import { compileNodeCondition } from '../index.js';

describe('compileNodeCondition', () => {
  it('compiles each stored dialect and evaluates against a scope', () => {
    const scope = { vars: { pull: { count: 3 }, step3: { result: true }, entity_name: 'ACME' } };
    expect(compileNodeCondition({ condition: '{pull.count} > 0 AND {entity_name} is defined' })!(scope)).toBe(true);
    expect(compileNodeCondition({ condition: '{"==":[{"var":"step3.result"},true]}', conditionDialect: 'jsonlogic' })!(scope)).toBe(true);
    expect(compileNodeCondition({ condition: '{"field":"pull.count","operator":"greater_than","value":5}', conditionDialect: 'object' })!(scope)).toBe(false);
    expect(compileNodeCondition({})).toBeUndefined();
  });

  it('throws on a condition that does not parse', () => {
    expect(() => compileNodeCondition({ condition: '{pull.count} >' })).toThrow();
  });
});
