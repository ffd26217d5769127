/**
 * Which stored playbook (and revision) a run was started from, remembered by
 * the console when it starts the run: the run API has no edges, the
 * playbook's graph route has them.
 */
const KEY = 'af.console.run-playbooks';

export interface RunSource {
  playbookId: string;
  revision: number;
}

function read(): Record<string, RunSource> {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '{}') as Record<string, RunSource>;
  } catch {
    return {};
  }
}

export function rememberRunSource(runId: string, source: RunSource): void {
  const all = read();
  all[runId] = source;
  // Keep the newest 200 runs.
  const entries = Object.entries(all).slice(-200);
  try {
    localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(entries)));
  } catch {
    /* storage full or unavailable: the graph is drawn without edges */
  }
}

export function runSource(runId: string): RunSource | undefined {
  return read()[runId];
}
