/**
 * The blob-store contract, run against every store: PostgreSQL (always; the
 * test database) and S3 when S3_ENDPOINT (+ S3_BUCKET, credentials) names a
 * reachable S3-compatible store, e.g. MinIO:
 *   S3_ENDPOINT=http://127.0.0.1:9000 S3_BUCKET=af-test S3_ACCESS_KEY_ID=… S3_SECRET_ACCESS_KEY=… npx jest -c jest.int.config.cjs blob-store
 */
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { PgBlobStore, type BlobStore } from '../../src/infra/blob-store.js';
import { OUTPUT_ROUTER_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { S3BlobStore } from '../../src/infra/s3-blob-store.js';

function blobStoreContract(name: string, make: () => BlobStore) {
  describe(`blob store contract: ${name}`, () => {
    it('gives back exactly the bytes it stored, under distinct keys', async () => {
      const store = make();
      const bytes = new Uint8Array([0, 1, 2, 250, 255, 10, 13]);
      const a = await store.put(bytes);
      const b = await store.put(new TextEncoder().encode('second'));
      expect(a).not.toBe(b);
      expect([...(await store.get(a))]).toEqual([...bytes]);
      expect((await store.get(b)).toString('utf8')).toBe('second');
      expect((await store.get(await store.put(new Uint8Array()))).byteLength).toBe(0);
    });

    it('deletes what it is told to, and a deleted blob is gone', async () => {
      const store = make();
      const keep = await store.put(new TextEncoder().encode('keep'));
      const drop = await store.put(new TextEncoder().encode('drop'));
      await store.delete([drop]);
      await expect(store.get(drop)).rejects.toThrow();
      expect((await store.get(keep)).toString('utf8')).toBe('keep');
      await store.delete([]);
    });
  });
}

let db: TestDatabase;

beforeAll(async () => {
  // The service's own migrations, in the fresh database's default schema.
  db = await createTestDatabase();
  for (const M of OUTPUT_ROUTER_MIGRATIONS)
    await new M().up({ query: (sql: string, params?: unknown[]) => db.query(sql, params) } as never);
});

afterAll(async () => {
  await db?.drop();
});

blobStoreContract('postgres', () => new PgBlobStore({ query: (sql, params) => db.query(sql, params) }));

const s3 = process.env.S3_ENDPOINT;
// Needs an S3-compatible store we cannot run here: runs when S3_ENDPOINT is set.
const contract = s3
  ? blobStoreContract
  : (name: string, make: () => BlobStore) =>
      describe.skip(`blob store contract: ${name} (set S3_ENDPOINT)`, () => void make);
contract(
  's3',
  () =>
    new S3BlobStore({
      endpoint: s3!,
      region: process.env.S3_REGION ?? 'us-east-1',
      bucket: process.env.S3_BUCKET ?? 'af-test',
      forcePathStyle: true,
      prefix: `contract-${Date.now()}/`,
      ...(process.env.S3_ACCESS_KEY_ID ? { accessKeyId: process.env.S3_ACCESS_KEY_ID } : {}),
      ...(process.env.S3_SECRET_ACCESS_KEY ? { secretAccessKey: process.env.S3_SECRET_ACCESS_KEY } : {}),
    }),
);
