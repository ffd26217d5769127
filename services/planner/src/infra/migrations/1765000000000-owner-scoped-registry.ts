import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Capabilities and facets belong to an owner (`user:<id>`, `team:<id>` or
 * `shared`, see domain/registry/ownership.ts) and their ids resolve per owner.
 * Existing capabilities become owned by their registrant; existing facets,
 * which were global and recorded no owner, become the shared catalog (so every
 * capability and plan that used them keeps working).
 */
export class OwnerScopedRegistry1765000000000 implements MigrationInterface {
  name = 'OwnerScopedRegistry1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE flex_facets ADD COLUMN owner text NOT NULL DEFAULT 'shared';
      ALTER TABLE flex_facets ALTER COLUMN owner DROP DEFAULT;
      ALTER TABLE flex_facets DROP CONSTRAINT flex_facets_pkey;
      ALTER TABLE flex_facets ADD PRIMARY KEY (owner, name);

      ALTER TABLE flex_capabilities ADD COLUMN owner text;
      UPDATE flex_capabilities SET owner = 'user:' || owner_user_id;
      ALTER TABLE flex_capabilities ALTER COLUMN owner SET NOT NULL;
      ALTER TABLE flex_capability_instances ADD COLUMN owner text;
      UPDATE flex_capability_instances i SET owner = c.owner FROM flex_capabilities c WHERE c.capability_id = i.capability_id;
      ALTER TABLE flex_capability_instances ALTER COLUMN owner SET NOT NULL;
      ALTER TABLE flex_capability_instances DROP CONSTRAINT flex_capability_instances_capability_id_fkey;
      ALTER TABLE flex_capability_instances DROP CONSTRAINT flex_capability_instances_pkey;
      ALTER TABLE flex_capabilities DROP CONSTRAINT flex_capabilities_pkey;
      ALTER TABLE flex_capabilities ADD PRIMARY KEY (owner, capability_id);
      ALTER TABLE flex_capability_instances ADD PRIMARY KEY (owner, capability_id, instance_id);
      ALTER TABLE flex_capability_instances ADD FOREIGN KEY (owner, capability_id) REFERENCES flex_capabilities (owner, capability_id) ON DELETE CASCADE;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    // Only possible while every id has one owner.
    await q.query(`
      ALTER TABLE flex_capability_instances DROP CONSTRAINT flex_capability_instances_owner_capability_id_fkey;
      ALTER TABLE flex_capability_instances DROP CONSTRAINT flex_capability_instances_pkey;
      ALTER TABLE flex_capabilities DROP CONSTRAINT flex_capabilities_pkey;
      ALTER TABLE flex_capabilities ADD PRIMARY KEY (capability_id);
      ALTER TABLE flex_capability_instances ADD PRIMARY KEY (capability_id, instance_id);
      ALTER TABLE flex_capability_instances ADD FOREIGN KEY (capability_id) REFERENCES flex_capabilities (capability_id) ON DELETE CASCADE;
      ALTER TABLE flex_capability_instances DROP COLUMN owner;
      ALTER TABLE flex_capabilities DROP COLUMN owner;
      ALTER TABLE flex_facets DROP CONSTRAINT flex_facets_pkey;
      ALTER TABLE flex_facets ADD PRIMARY KEY (name);
      ALTER TABLE flex_facets DROP COLUMN owner;
    `);
  }
}
