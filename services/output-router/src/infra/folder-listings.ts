/**
 * The folder listings behind detect_folder_changes' hash watermarks (table
 * `folder_listings`): what a folder held when a watermark was taken, so the
 * next check can tell which documents were deleted since.
 */
import { sqlRows, type Queryable } from '@af/service-kit';

/** One document of a listing: id, version, title. */
export type ListingEntry = [id: string, version: number, title: string];

export interface FolderListings {
  /** Keep `listing` under (owner, hash); an existing one is only marked used. */
  save(ownerUserId: string, hash: string, listing: ListingEntry[]): Promise<void>;
  /** The listing a watermark was taken of, if still kept. */
  load(ownerUserId: string, hash: string): Promise<ListingEntry[] | undefined>;
}

const UNUSED_DAYS = 90;

export class PgFolderListings implements FolderListings {
  constructor(private readonly db: Queryable) {}

  async save(ownerUserId: string, hash: string, listing: ListingEntry[]): Promise<void> {
    await this.db.query(
      `WITH gone AS (DELETE FROM folder_listings WHERE owner_user_id = $1 AND last_used_at < now() - ($4::int * interval '1 day'))
       INSERT INTO folder_listings (owner_user_id, hash, listing) VALUES ($1, $2, $3::jsonb)
       ON CONFLICT (owner_user_id, hash) DO UPDATE SET last_used_at = now()`,
      [ownerUserId, hash, JSON.stringify(listing), UNUSED_DAYS],
    );
  }

  async load(ownerUserId: string, hash: string): Promise<ListingEntry[] | undefined> {
    const [row] = await sqlRows<{ listing: ListingEntry[] }>(this.db, 'SELECT listing FROM folder_listings WHERE owner_user_id = $1 AND hash = $2', [ownerUserId, hash]);
    return row?.listing;
  }
}
