/**
 * `query_template`: the text a scheduled run is given as its `query` input,
 * with `{date}` (the fire's date) and `{last_run_date}` (the date of the
 * schedule's previous run; its creation date before the first) written as
 * YYYY-MM-DD in the schedule's time zone. `{datetime}` is the fire's ISO
 * instant. Other `{name}` placeholders are refused when the schedule is
 * saved, so a typo cannot reach a run.
 */

export const TEMPLATE_VARIABLES = ['date', 'last_run_date', 'datetime'] as const;

/** Placeholders of `template` that are not known variables. */
export function unknownPlaceholders(template: string): string[] {
  const out = new Set<string>();
  for (const m of template.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    if (!(TEMPLATE_VARIABLES as readonly string[]).includes(m[1]!)) out.add(m[1]!);
  }
  return [...out];
}

/** YYYY-MM-DD of `at` on the wall calendar of `timeZone`. */
export function localDate(at: Date, timeZone: string): string {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

export function renderQueryTemplate(template: string, v: { fireAt: Date; lastRunAt: Date | null; createdAt: Date; timeZone: string }): string {
  const values: Record<string, string> = {
    date: localDate(v.fireAt, v.timeZone),
    last_run_date: localDate(v.lastRunAt ?? v.createdAt, v.timeZone),
    datetime: v.fireAt.toISOString(),
  };
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => values[name] ?? whole);
}
