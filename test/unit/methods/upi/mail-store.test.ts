// The UPI mail store's crash marks and rejected-mail pruning, on both stores.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Db } from '../../../../src/db/open.ts';
import type { UpiMailStore } from '../../../../src/methods/upi/mail-store.ts';
import { forEachStore } from '../../../helpers/stores.ts';
import { mailStoreOn } from '../../../helpers/upi-imap-fakes.ts';

const DAY = 86_400_000;

forEachStore((on) => {
  describe('UPI mail store', () => {
    let db: Db;
    let store: UpiMailStore;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ db, store, close } = await mailStoreOn(on));
    });
    afterEach(() => close());

    test('a mark names the run that left it, until the message has its outcome', async () => {
      assert.equal(await store.inspectingHolder('box', 'imap:1:7'), undefined);
      await store.markInspecting({ mailbox: 'box', ref: 'imap:1:7', uid: 7, startedAt: 1, holder: 'run-a' });
      await store.markInspecting({ mailbox: 'box', ref: 'imap:1:7', uid: 7, startedAt: 2, holder: 'run-b' }); // idempotent: the first stays
      assert.equal(await store.inspectingHolder('box', 'imap:1:7'), 'run-a');
      assert.equal(await store.inspectingHolder('other', 'imap:1:7'), undefined);
      await store.unmarkInspecting('box', 'imap:1:7');
      assert.equal(await store.inspectingHolder('box', 'imap:1:7'), undefined);
    });

    test('pruning deletes rejected mail older than the cutoff, and nothing else', async () => {
      const now = 100 * DAY;
      const row = (ref: string, source: string, observed_at: number) => ({ ref, source, method: source === 'imap' ? 'UPI' : 'USDT_TRC20', reason: 'dkim_fail', detail_json: null, raw: Buffer.from('x'), observed_at });
      await db.insertInto('rejections').values([row('imap:1:1', 'imap', now - 91 * DAY), row('imap:1:2', 'imap', now - 89 * DAY), row('tron:old', 'trongrid', now - 200 * DAY)]).execute();
      assert.equal(await store.pruneRejected(now - 90 * DAY), 1);
      const left = await db.selectFrom('rejections').select('ref').orderBy('ref').execute();
      assert.deepEqual(left.map((r) => r.ref), ['imap:1:2', 'tron:old']);
    });
  });
});
