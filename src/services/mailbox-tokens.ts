import type { Db } from '../db/open.ts';
import type { Clock, MailboxTokenStore, Random } from '../domain/ports.ts';
import type { Keyring } from './keys.ts';

export function createMailboxTokenStore(d: { db: Db; keys: Keyring; clock: Clock; random: Random }): MailboxTokenStore {
  return {
    async current(key, configured) {
      const row = await d.db.selectFrom('mailbox_oauth_tokens').selectAll().where('key', '=', key).executeTakeFirst();
      if (!row) return configured;
      const keys = await d.keys.get();
      if (!keys.verifySecret(configured, row.configured_hash)) return configured;
      return keys.unseal(row.refresh_token_sealed);
    },
    async save(key, configured, rotated) {
      const keys = await d.keys.get();
      const row = { refresh_token_sealed: keys.seal(rotated, d.random), configured_hash: keys.hashSecret(configured), updated_at: d.clock.now() };
      await d.db
        .insertInto('mailbox_oauth_tokens')
        .values({ key, ...row })
        .onConflict((oc) => oc.column('key').doUpdateSet(row))
        .execute();
    },
  };
}
