/** The bytes of a document version, from output-router's OutputService.GetDocument, asked for as the document's owner. */
import { output } from '@af/contracts';
import { AppError, call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import type { DocumentSource } from '../app/ingest-document.js';

export function workspaceDocuments(address: string, auth: PrincipalSigner): DocumentSource {
  const client = createGrpcClient<output.OutputServiceClient>('output', output.OUTPUT_SERVICE_NAME, address, { auth, readyWaitMs: 10_000 });
  return {
    async content(owner, documentId, version) {
      try {
        const res = await call(client.getDocument({ principal: { userId: owner, teamIds: [] }, documentId, version }), 60_000);
        return res.content;
      } catch (err) {
        // Deleted (or that version gone) since the event: nothing to index.
        if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
        throw err;
      }
    },
  };
}
