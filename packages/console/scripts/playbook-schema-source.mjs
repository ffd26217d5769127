// The playbook format's JSON Schema from @af/plan (zod → JSON Schema).
import { PlaybookSchema } from '@af/plan';
import { z } from 'zod';

export async function playbookJsonSchema() {
  return z.toJSONSchema(PlaybookSchema, { io: 'input', unrepresentable: 'any' });
}
