/**
 * Document use cases shared by the gRPC API (the gateway's routes) and the
 * file actions: checks (content type, size, ownership → NOT_FOUND) live here.
 */
import { AppError, type Queryable } from '@af/service-kit';
import { contentProblem, isTextType, normalContentType } from '../domain/content-policy.js';
import { folderNames, type DocumentMeta, type Folder, type Origin } from '../domain/workspace.js';
import type { DocumentsRepository } from '../infra/documents.repository.js';

export class Documents {
  constructor(
    readonly repo: DocumentsRepository,
    private readonly maxBytes: number,
  ) {}

  check(contentType: string, content: Uint8Array, field = ''): string {
    const problem = contentProblem(contentType, content, this.maxBytes);
    if (problem) {
      const f = field ? `${field}.${problem.field}` : problem.field;
      if (problem.field === 'content' && content.byteLength > this.maxBytes)
        throw new AppError('PAYLOAD_TOO_LARGE', `${f}: ${problem.reason}`, {
          violations: [{ field: f, reason: problem.reason }],
        });
      throw AppError.invalid(f, problem.reason);
    }
    return normalContentType(contentType);
  }

  async folderOrFail(owner: string, id: string, field: string, q?: Queryable): Promise<Folder> {
    const f = await this.repo.folder(owner, id, q);
    if (!f)
      throw new AppError('NOT_FOUND', `${field}: folder ${id} not found`, {
        violations: [{ field, reason: 'not found' }],
      });
    return f;
  }

  /** The folder at `path`, each missing level created. */
  async ensurePath(owner: string, path: string, field: string, q?: Queryable): Promise<Folder> {
    const names = folderNames(path);
    if (!names.ok) throw AppError.invalid(field, names.reason);
    let parent: Folder | null = null;
    for (const name of names.names) parent = (await this.repo.ensureFolder(owner, name, parent, q)).folder;
    return parent!;
  }

  async docOrFail(owner: string, id: string, field = 'document_id'): Promise<DocumentMeta> {
    const d = await this.repo.document(owner, id);
    if (!d)
      throw new AppError('NOT_FOUND', `document ${id} not found`, {
        violations: [{ field, reason: 'not found' }],
      });
    return d;
  }

  async upload(
    u: {
      owner: string;
      title: string;
      contentType: string;
      content: Uint8Array;
      folderId?: string;
      documentId?: string;
      origin?: Origin;
    },
    q?: Queryable,
  ) {
    if (!u.title.trim() && !u.documentId) throw AppError.invalid('title', 'is required');
    if (u.title.length > 255) throw AppError.invalid('title', 'must be at most 255 characters');
    const type = this.check(u.contentType, u.content);
    if (u.documentId) {
      const doc = await this.repo.addVersion(u.owner, u.documentId, u.content, type, q);
      if (!doc) throw AppError.notFound('document', u.documentId);
      return doc;
    }
    const folderId = u.folderId ? (await this.folderOrFail(u.owner, u.folderId, 'folder_id', q)).id : null;
    return this.repo.create(
      {
        owner: u.owner,
        title: u.title.trim(),
        contentType: type,
        content: u.content,
        folderId,
        ...(u.origin ? { origin: u.origin } : {}),
      },
      q,
    );
  }

  /** A text document's content (binary documents: FAILED_PRECONDITION). */
  async text(
    owner: string,
    id: string,
    field = 'document_id',
  ): Promise<{ meta: DocumentMeta; text: string }> {
    const got = await this.repo.content(owner, id);
    if (!got)
      throw new AppError('NOT_FOUND', `document ${id} not found`, {
        violations: [{ field, reason: 'not found' }],
      });
    if (!isTextType(got.meta.contentType))
      throw new AppError('FAILED_PRECONDITION', `document ${id} is ${got.meta.contentType}, not text`);
    return { meta: got.meta, text: got.content.toString('utf8') };
  }
}
