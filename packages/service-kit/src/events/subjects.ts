/**
 * Subject and stream names (DESIGN §3). A prefix (NATS_PREFIX) isolates test
 * runs sharing one NATS server; production runs with none.
 */
export interface StreamSpec {
  name: string;
  subjects: string[];
  kind: 'events' | 'workqueue';
}

export class Subjects {
  private readonly p: string;

  constructor(readonly prefix = '') {
    this.p = prefix ? `${prefix}.` : '';
  }

  /** `af.run.<runId>.<event>` */
  run(runId: string, event: string): string {
    return `${this.p}af.run.${runId}.${event}`;
  }

  /** Every frame of one run. */
  runAll(runId: string): string {
    return `${this.p}af.run.${runId}.>`;
  }

  /** Work items for the orchestrator: `af.work.run.<runId>`. */
  runWork(runId: string): string {
    return `${this.p}af.work.run.${runId}`;
  }

  /** Connector-runtime events: `af.connector.<connectorId>.<event>` (e.g. `binding.auth_failed`). */
  connector(connectorId: string, event: string): string {
    return `${this.p}af.connector.${connectorId}.${event}`;
  }

  /** Workspace document events (output-router): `af.document.<documentId>.<created|updated|deleted>`. */
  document(documentId: string, event: string): string {
    return `${this.p}af.document.${documentId}.${event}`;
  }

  runWorkAll(): string {
    return `${this.p}af.work.run.>`;
  }

  /** The streams every service expects; created idempotently at start-up. */
  streams(): StreamSpec[] {
    const s = this.prefix ? `${this.prefix.toUpperCase()}_` : '';
    return [
      {
        name: `${s}AF_EVENTS`,
        subjects: [`${this.p}af.run.>`, `${this.p}af.approval.>`, `${this.p}af.capability.>`, `${this.p}af.entity.>`, `${this.p}af.connector.>`, `${this.p}af.document.>`],
        kind: 'events',
      },
      { name: `${s}AF_WORK`, subjects: [`${this.p}af.work.>`], kind: 'workqueue' },
    ];
  }

  streamFor(subject: string): StreamSpec {
    const spec = this.streams().find((s) => s.subjects.some((f) => matches(f, subject)));
    if (!spec) throw new Error(`no stream holds subject ${subject}`);
    return spec;
  }
}

/** NATS subject matching with `*` (one token) and `>` (the rest). */
export function matches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}
