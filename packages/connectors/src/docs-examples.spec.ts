/**
 * The connector author's guide (docs/connectors.md, at the repository root)
 * shows a complete definition for every type: each must parse, without
 * warnings, as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONNECTOR_TYPES } from './connector-definition.schema.js';
import { parseConnectorYaml } from './connector-definition.js';

const GUIDE = readFileSync(join(__dirname, '../../../docs/connectors.md'), 'utf8');
const definitions = [...GUIDE.matchAll(/```yaml\n([\s\S]*?)```/g)]
  .map((m) => m[1] as string)
  .filter((yaml) => /^id: /m.test(yaml));

describe('docs/connectors.md examples', () => {
  it('has a complete example of every connector type', () => {
    const types = definitions.map((yaml) => /^type: (\w+)/m.exec(yaml)?.[1]);
    expect([...new Set(types)].sort()).toEqual([...CONNECTOR_TYPES].sort());
  });

  it.each(definitions.map((yaml) => [/^id: (.+)$/m.exec(yaml)?.[1], yaml]))(
    '%s parses without errors or warnings',
    (_id, yaml) => {
      const result = parseConnectorYaml(yaml as string);
      if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 2));
      expect(result.warnings).toEqual([]);
    },
  );
});
