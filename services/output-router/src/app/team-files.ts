/**
 * Documents in a team's shared folders (a folder created with a `team_id`
 * and its sub-folders), for the team's members: the search and the read
 * behind `search_team_files` / `read_team_file` and the gateway's team-file
 * routes. Not a member: NOT_FOUND naming the team field, as for posts.
 */
import { AppError } from '@af/service-kit';
import { isTextType } from '../domain/content-policy.js';
import { queryTerms, scoreFile } from '../domain/team-file-search.js';
import type { DocumentMeta, Principal } from '../domain/workspace.js';
import type { DocumentsRepository } from '../infra/documents.repository.js';

/** The most documents of a team (most recently changed first) one search reads. */
const MAX_SEARCHED_FILES = 500;

export type TeamFileMeta = DocumentMeta & { author: string };
export interface TeamFileHit {
  meta: TeamFileMeta;
  snippet: string;
  score: number;
}

/** `Reports/2026`, `/Reports/2026/` → `/Reports/2026`. */
const folderPath = (p: string) => `/${p.split('/').filter(Boolean).join('/')}`;

export function assertMember(principal: Principal, teamId: string, field: string): void {
  if (!principal.teamIds.includes(teamId))
    throw new AppError('NOT_FOUND', `${field}: team ${teamId} not found`, { violations: [{ field, reason: 'not found' }] });
}

export class TeamFiles {
  constructor(private readonly repo: DocumentsRepository) {}

  /** With `query`: the matches, best first; without: the newest documents. `fields` name the inputs in errors. */
  async search(
    principal: Principal,
    opts: { teamId: string; query?: string; folderPath?: string; fileTypes?: readonly string[]; maxResults: number },
    fields: { team: string; query: string },
  ): Promise<TeamFileHit[]> {
    assertMember(principal, opts.teamId, fields.team);
    const terms = opts.query !== undefined ? queryTerms(opts.query) : [];
    if (opts.query !== undefined && !terms.length) throw AppError.invalid(fields.query, 'has no words to search for');
    let docs = await this.repo.teamDocuments(opts.teamId, {
      ...(opts.folderPath ? { folderPath: folderPath(opts.folderPath) } : {}),
      limit: opts.query !== undefined ? MAX_SEARCHED_FILES : opts.maxResults,
    });
    if (opts.fileTypes?.length) {
      const want = opts.fileTypes.map((t) => t.toLowerCase().replace(/^\./, ''));
      docs = docs.filter((doc) => want.some((t) => doc.contentType === t || doc.title.toLowerCase().endsWith(`.${t}`) || doc.contentType.endsWith(`/${t}`)));
    }
    if (opts.query === undefined) return docs.map((meta) => ({ meta, snippet: '', score: 0 }));
    const hits: TeamFileHit[] = [];
    for (const meta of docs) {
      const text = isTextType(meta.contentType) ? (await this.repo.teamDocument(opts.teamId, meta.id))?.content.toString('utf8') : undefined;
      const hit = scoreFile({ title: meta.title, ...(text !== undefined ? { text } : {}) }, terms);
      if (hit) hits.push({ meta, ...hit });
    }
    hits.sort((a, b) => b.score - a.score || b.meta.updatedAt.getTime() - a.meta.updatedAt.getTime());
    return hits.slice(0, opts.maxResults);
  }

  /** One document with its latest bytes; NOT_FOUND when it is not in the team's shared folders. */
  async read(principal: Principal, teamId: string, documentId: string, fields: { team: string; document: string }): Promise<{ meta: TeamFileMeta; content: Buffer }> {
    assertMember(principal, teamId, fields.team);
    const got = await this.repo.teamDocument(teamId, documentId);
    if (!got)
      throw new AppError('NOT_FOUND', `${fields.document}: document ${documentId} not found in the shared folders of team ${teamId}`, {
        violations: [{ field: fields.document, reason: 'not found' }],
      });
    return got;
  }
}
