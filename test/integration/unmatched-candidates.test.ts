// An unmatched payment told to the operator (Telegram, `payd payments list --unmatched`) names the
// orders it may have been meant for and the command that settles it on one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { payd } from '../helpers/cli.ts';
import { startNotifyingPayd, upiPayment } from '../helpers/notify.ts';
import { forEachStore } from '../helpers/stores.ts';
import { waitFor } from '../helpers/wait.ts';

forEachStore((store) => {
  test('an unmatched payment names the nearby orders and how to settle it on one, in Telegram and in the CLI', async (t) => {
    const { p, tg, create } = await startNotifyingPayd(t, { store, notify: { email: null } });
    const near = await create(620, 'ORD-NEAR');
    const next = await create(640, 'ORD-NEXT');
    const far = await create(1000, 'ORD-FAR');
    const alone = await create(1250, 'ORD-ALONE');
    const shown = (x: { pay_amount: number }) => x.pay_amount.toFixed(2);

    // Wrong amounts: 600.00 is near two orders (620 the closer), 1234.56 near one, 50.00 near none.
    assert.equal((await p.app.ledger.ingest(upiPayment(p, 60000n, '400000000001'))).kind, 'unmatched');
    assert.equal((await p.app.ledger.ingest(upiPayment(p, 123456n, '400000000002'))).kind, 'unmatched');
    assert.equal((await p.app.ledger.ingest(upiPayment(p, 5000n, '400000000003'))).kind, 'unmatched');
    const toShop = () => tg.sent.filter((s) => s.chat_id === tg.sent[0]!.chat_id).map((s) => s.text);
    await waitFor(async () => tg.sent.length > 0 && toShop().length >= 3, 10_000, 'the three unmatched payments to be told');
    const [two, one, none] = ['400000000001', '400000000002', '400000000003'].map((ref) => toShop().find((s) => s.includes(`Ref ${ref}.`))!);
    assert.match(two!, new RegExp(`Maybe order ORD-NEAR \\(asked ₹${shown(near)}, pending, intent ${near.intent_id}\\) or order ORD-NEXT \\(asked ₹${shown(next)}, pending, intent ${next.intent_id}\\)\\.`));
    assert.doesNotMatch(two!, /ORD-FAR|ORD-ALONE/);
    assert.match(two!, /settle it: payd intents settle <intent_id> --tx 400000000001\./);
    // One candidate: the command is ready to run.
    assert.match(one!, new RegExp(`Maybe order ORD-ALONE .*settle it: payd intents settle ${alone.intent_id} --tx 400000000002\\.`));
    assert.match(none!, /No open or expired order asked a nearby amount\. If it was meant for an order, settle it: payd intents settle <intent_id> --tx 400000000003\./);
    assert.ok(far.intent_id);

    // The CLI beside it shows the same candidates, and the command it prints settles the payment.
    writeFileSync(join(p.dir, 'payd.config.json'), JSON.stringify(p.rawConfig));
    const table = await payd(['payments', 'list', '--unmatched'], { cwd: p.dir });
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, /CANDIDATES/);
    assert.match(table.out, new RegExp(`400000000001 +600 +no_matching_intent +order ORD-NEAR \\(asked ${shown(near)}, pending, intent ${near.intent_id}\\) or order ORD-NEXT`));
    assert.match(table.out, /400000000003 +50 +no_matching_intent +\(no order asked a nearby amount\)/);
    assert.match(table.out, /To settle one on the order it was meant for: payd intents settle <intent_id> --tx <tx_ref>/);
    const json = await payd(['payments', 'list', '--unmatched', '--json'], { cwd: p.dir });
    assert.deepEqual(json.json().find((r: any) => r.tx_ref === '400000000002').candidates, [{ intent_id: alone.intent_id, order_id: 'ORD-ALONE', status: 'pending', asked: shown(alone) }]);
    const settled = await payd(['intents', 'settle', alone.intent_id, '--tx', '400000000002', '--accept-difference', '--yes'], { cwd: p.dir });
    assert.equal(settled.code, 0, settled.err);
    assert.equal((await p.app.intents.find(alone.intent_id))!.status, 'settled');
  });
});
