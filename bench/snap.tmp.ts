import { preparePaydDir, startServe } from './payd-process.ts';
const d = preparePaydDir({ methods: process.argv[2] === 'none' ? 'none' : 'all' });
const p = await startServe(d, { execArgv: ['--import', '/tmp/perfwork/snap.mjs'] });
await new Promise((r) => setTimeout(r, 2000));
process.kill(p.pid, 'SIGUSR2');
await new Promise((r) => setTimeout(r, 8000));
console.log(p.pid);
await p.stop();
d.close();
