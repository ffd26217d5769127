// Writes src/playbook/playbook.schema.json: the playbook format's JSON Schema,
// made from @af/plan's PlaybookSchema, which the editor completes from.
// Run after changing the playbook format: node scripts/playbook-schema.mjs
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { playbookJsonSchema } from './playbook-schema-source.mjs';

const out = fileURLToPath(new URL('../src/playbook/playbook.schema.json', import.meta.url));
writeFileSync(out, `${JSON.stringify(await playbookJsonSchema(), null, 2)}\n`);
console.log(`wrote ${out}`);
