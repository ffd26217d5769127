/**
 * The blob store on S3 (or any S3-compatible store: MinIO, R2, Ceph) with
 * `@aws-sdk/client-s3`. Objects are keyed `<prefix><uuid>`. Unlike the
 * PostgreSQL store it cannot join the database transaction: an object is
 * written before the rows that name it commit (a rolled-back write leaves an
 * unreferenced object, never a row without its bytes).
 */
import { randomUUID } from 'node:crypto';
import { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { BlobStore } from './blob-store.js';

export interface S3BlobStoreOptions {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style URLs (`<endpoint>/<bucket>/<key>`), which MinIO and most local stores need. */
  forcePathStyle: boolean;
  prefix?: string;
}

export class S3BlobStore implements BlobStore {
  private readonly s3: S3Client;

  constructor(private readonly opts: S3BlobStoreOptions) {
    this.s3 = new S3Client({
      region: opts.region,
      forcePathStyle: opts.forcePathStyle,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.accessKeyId && opts.secretAccessKey
        ? { credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } }
        : {}),
    });
  }

  async put(content: Uint8Array): Promise<string> {
    const key = `${this.opts.prefix ?? ''}${randomUUID()}`;
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.opts.bucket,
        Key: key,
        Body: content,
        ContentLength: content.byteLength,
      }),
    );
    return key;
  }

  async get(key: string): Promise<Buffer> {
    const out = await this.s3.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: key }));
    if (!out.Body) throw new Error(`blob ${key} is missing`);
    return Buffer.from(await out.Body.transformToByteArray());
  }

  async delete(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      await this.s3.send(
        new DeleteObjectsCommand({
          Bucket: this.opts.bucket,
          Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
        }),
      );
    }
  }

  close(): void {
    this.s3.destroy();
  }
}
