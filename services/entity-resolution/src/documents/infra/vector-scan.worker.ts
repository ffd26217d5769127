/**
 * Worker thread of VectorScanPool: scans a slice of rows of a shared column
 * block (`scanColumns`) and answers its top k. Each request `{ id, … }` is
 * answered `{ id, rows, scores }` or `{ id, error }`; requests run in order.
 */
import { parentPort } from 'node:worker_threads';
import { scanColumns, type ScanRequest } from '../domain/vector-index.js';

export interface ScanJob extends ScanRequest {
  id: number;
  data: Float32Array;
  groups: Int32Array;
  capacity: number;
}

export type ScanReply = { id: number; rows: Int32Array; scores: Float32Array } | { id: number; error: string };

const scratch = { scores: new Float32Array(0) };

parentPort?.on('message', (job: ScanJob) => {
  let reply: ScanReply;
  try {
    const r = scanColumns(job.data, job.capacity, job.groups, job, scratch);
    reply = { id: job.id, rows: r.rows, scores: r.scores };
    parentPort!.postMessage(reply, [r.rows.buffer as ArrayBuffer, r.scores.buffer as ArrayBuffer]);
    return;
  } catch (err) {
    reply = { id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
