/**
 * Types of `@af/entity-resolution/batch` (the service package builds without
 * declarations); they mirror services/entity-resolution/src/cli/resolve-file.ts,
 * which the er e2e spec of this package runs for real.
 */
declare module '@af/entity-resolution/batch' {
  export interface ResolveFileOptions {
    inPath: string;
    outPath: string;
    onProgress?: (done: number, total: number) => void;
    onBadLine?: (line: number, reason: string) => void;
    /** 1: one thread; default: PERSON and ORG on two worker threads (`ER_THREADS` overrides). */
    threads?: number;
  }
  export interface ResolveFileSummary {
    records: number;
    badLines: number;
    clusters: number;
    review: number;
    seconds: number;
  }
  export interface ErRecord {
    recordId: string;
    source?: string;
    entityType: 'PERSON' | 'ORG';
    name: string;
    aliases?: string[];
    externalIds?: Partial<Record<'ein' | 'fec_id' | 'cik', string>>;
    city?: string;
    state?: string;
    employer?: string;
    title?: string;
  }
  export type LineResult = { ok: true; record: ErRecord } | { ok: false; line: number; reason: string };
  export function parseLine(text: string, line: number): LineResult | undefined;
  export function resolveFile(opts: ResolveFileOptions): Promise<ResolveFileSummary>;
}
