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
    /** A model file's model (readModelFile); default: the shipped one. */
    model?: ScoringModel;
    /** Auto-merge and review thresholds (parseThresholdFlags); default 0.9 and 0.4. */
    thresholds?: Thresholds;
  }
  export interface Thresholds {
    auto: number;
    review: number;
  }
  /** The thresholds `--auto-threshold` / `--review-threshold` give, or throws an Error naming the flag. */
  export function parseThresholdFlags(flags: { auto?: string | undefined; review?: string | undefined }): Thresholds;
  /** Opaque here: read from a model file and handed back to resolveFile. */
  export interface ScoringModel {
    PERSON: unknown;
    ORG: unknown;
    minTfU: number;
  }
  export interface ModelFile {
    format: 'af-er-model';
    version: 1;
    fit: { fitted_at: string; records: Record<string, number>; calibration: Record<string, 'labels' | 'default'>; tables: Record<string, 'em' | 'default'> };
    model: ScoringModel;
  }
  /** The model file's content, or throws an Error naming `source`, the field and the reason. */
  export function readModelFile(text: string, source: string): ModelFile;
  export interface FitFileOptions {
    inPath: string;
    outPath: string;
    onBadLine?: (line: number, reason: string) => void;
    onStage?: (stage: string) => void;
  }
  export interface FitFileSummary {
    records: number;
    labelled: number;
    badLines: number;
    fit: ModelFile['fit'];
    seconds: number;
  }
  export function fitFile(opts: FitFileOptions): Promise<FitFileSummary>;
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
