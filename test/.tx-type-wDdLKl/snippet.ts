import { writeTx, type Db } from '../../src/db/open.ts';
import { createOutbox } from '../../src/services/outbox.ts';
declare const db: Db;
const outbox = createOutbox({ clock: { now: () => 0 }, random: { uuid: () => '', bytes: () => new Uint8Array(), float: () => 0 } as never });
export const ok = writeTx(db, (tx) => outbox.enqueue(tx, 'm', null, 'webhook.test', {}));
export const bad = outbox.enqueue(db, 'm', null, 'webhook.test', {});
