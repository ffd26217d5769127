/**
 * Quality of a clustering against labels: pairwise precision / recall / F1
 * (over all record pairs placed together) and B-cubed F1 (per-record
 * precision and recall of its cluster, averaged), plus pair completeness of
 * blocking. Pairs are counted per cluster × entity cell, never enumerated.
 */
export interface Labelled {
  recordId: string;
  entityId: string;
  clusterId: string;
}

export interface ClusterQuality {
  precision: number;
  recall: number;
  f1: number;
  bcubedPrecision: number;
  bcubedRecall: number;
  bcubedF1: number;
  truePairs: number;
  predictedPairs: number;
}

const pairs = (n: number) => (n * (n - 1)) / 2;
const f1 = (p: number, r: number) => (p + r === 0 ? 0 : (2 * p * r) / (p + r));

export function clusterQuality(rows: readonly Labelled[]): ClusterQuality {
  const byCluster = new Map<string, number>();
  const byEntity = new Map<string, number>();
  const cell = new Map<string, number>();
  for (const row of rows) {
    byCluster.set(row.clusterId, (byCluster.get(row.clusterId) ?? 0) + 1);
    byEntity.set(row.entityId, (byEntity.get(row.entityId) ?? 0) + 1);
    const key = `${row.clusterId}\u0000${row.entityId}`;
    cell.set(key, (cell.get(key) ?? 0) + 1);
  }
  let tp = 0;
  for (const n of cell.values()) tp += pairs(n);
  let predicted = 0;
  for (const n of byCluster.values()) predicted += pairs(n);
  let truth = 0;
  for (const n of byEntity.values()) truth += pairs(n);
  // B-cubed: for a record in cell (c, e) of size n, precision n/|c| and recall n/|e|; summed per cell.
  let bp = 0;
  let br = 0;
  for (const [key, n] of cell) {
    const [c, e] = key.split('\u0000');
    bp += (n * n) / byCluster.get(c ?? '')!;
    br += (n * n) / byEntity.get(e ?? '')!;
  }
  const N = rows.length || 1;
  const precision = predicted === 0 ? 1 : tp / predicted;
  const recall = truth === 0 ? 1 : tp / truth;
  return {
    precision,
    recall,
    f1: f1(precision, recall),
    bcubedPrecision: bp / N,
    bcubedRecall: br / N,
    bcubedF1: f1(bp / N, br / N),
    truePairs: truth,
    predictedPairs: predicted,
  };
}
