/** Node ids and literal text for plan nodes. */

/** A node id for a capability: `copywriter.SocialpostDrafting` → `copywriter_SocialpostDrafting`, unique among `taken`. */
export function nodeIdFor(name: string, taken: ReadonlySet<string>): string {
  let base = name.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z_]/.test(base)) base = `n_${base}`;
  let id = base;
  for (let i = 2; taken.has(id); i++) id = `${base}_${i}`;
  return id;
}

/**
 * Free text (instructions, special instructions, rationale) placed in node
 * params, made inert for reference resolution: `{word}` would be read as a
 * reference by the orchestrator, `{ word}` is literal.
 */
export function literalText(text: string): string {
  return text.replace(/\{(?=\S)/g, '{ ');
}
