/**
 * `patch_file` edits applied to a text document, in order:
 * `append` / `prepend` (content), `replace` (every occurrence of target),
 * `insert_after` / `insert_before` (the first occurrence of target),
 * `delete` (every occurrence of target). A target that is not found is an
 * error naming the edit, so a patch never half-applies silently.
 */
import { z } from 'zod';

export const editSchema = z.strictObject({
  operation: z.enum(['append', 'prepend', 'replace', 'insert_after', 'insert_before', 'delete']),
  target: z.string().min(1).optional(),
  content: z.string().default(''),
});
export type Edit = z.infer<typeof editSchema>;

export type PatchResult =
  { ok: true; text: string; applied: number } | { ok: false; field: string; reason: string };

export function applyEdits(text: string, raw: unknown, field = 'inputs.edits'): PatchResult {
  if (!Array.isArray(raw) || raw.length === 0)
    return { ok: false, field, reason: 'must be a non-empty list of edits' };
  let out = text;
  for (let i = 0; i < raw.length; i++) {
    const at = `${field}[${i}]`;
    const parsed = editSchema.safeParse(raw[i]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { ok: false, field: [at, ...issue.path.map(String)].join('.'), reason: issue.message };
    }
    const e = parsed.data;
    if (e.operation === 'append')
      out = out.endsWith('\n') || out === '' ? out + e.content : `${out}\n${e.content}`;
    else if (e.operation === 'prepend') out = e.content + out;
    else {
      if (!e.target) return { ok: false, field: `${at}.target`, reason: `is required for ${e.operation}` };
      const pos = out.indexOf(e.target);
      if (pos < 0)
        return {
          ok: false,
          field: `${at}.target`,
          reason: `${JSON.stringify(e.target.slice(0, 80))} is not in the document`,
        };
      if (e.operation === 'replace') out = out.split(e.target).join(e.content);
      else if (e.operation === 'delete') out = out.split(e.target).join('');
      else if (e.operation === 'insert_after')
        out = out.slice(0, pos + e.target.length) + e.content + out.slice(pos + e.target.length);
      else out = out.slice(0, pos) + e.content + out.slice(pos);
    }
  }
  return { ok: true, text: out, applied: raw.length };
}
