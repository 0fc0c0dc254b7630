import type { Db } from '../db/open.ts';
import type { Clock, MailboxTokenStore, Random } from '../domain/ports.ts';
import type { Keyring } from './keys.ts';

export function createMailboxTokenStore(deps: { db: Db; keys: Keyring; clock: Clock; random: Random }): MailboxTokenStore {
  return {
    async current(key, configured) {
      const row = await deps.db.selectFrom('mailbox_oauth_tokens').selectAll().where('key', '=', key).executeTakeFirst();
      if (!row) return configured;
      const keys = await deps.keys.get();
      if (!keys.verifySecret(configured, row.configured_hash)) return configured;
      return keys.unseal(row.refresh_token_sealed);
    },
    async save(key, configured, rotated) {
      const keys = await deps.keys.get();
      const row = { refresh_token_sealed: keys.seal(rotated, deps.random), configured_hash: keys.hashSecret(configured), updated_at: deps.clock.now() };
      await deps.db
        .insertInto('mailbox_oauth_tokens')
        .values({ key, ...row })
        .onConflict((oc) => oc.column('key').doUpdateSet(row))
        .execute();
    },
  };
}
