/** What the workspace holds, as the rest of the service sees it. */
export interface Principal {
  userId: string;
  teamIds: string[];
}

export interface Folder {
  id: string;
  name: string;
  parentId: string | null;
  path: string;
  /** Set: shared with this team (its members read the folder's documents). */
  teamId: string | null;
  createdAt: Date;
}

export interface DocumentMeta {
  id: string;
  title: string;
  folderId: string | null;
  folderPath: string;
  contentType: string;
  sizeBytes: number;
  version: number;
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** Where a write came from (stored on the document, the notification, …). */
export interface Origin {
  runId?: string;
  nodeId?: string;
  action?: string;
}

/** Splits a folder path (`Reports/2026`, `/Reports/2026/`) into names; empty names and `.`/`..` are refused. */
export function folderNames(path: string): { ok: true; names: string[] } | { ok: false; reason: string } {
  const names = path
    .split('/')
    .map((n) => n.trim())
    .filter(Boolean);
  if (!names.length) return { ok: false, reason: 'names no folder' };
  for (const n of names) {
    if (n === '.' || n === '..') return { ok: false, reason: `${JSON.stringify(n)} is not a folder name` };
    if (n.length > 200) return { ok: false, reason: 'a folder name is longer than 200 characters' };
  }
  return { ok: true, names };
}
