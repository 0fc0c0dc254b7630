// A real SMTP server on loopback (smtp-server) that keeps every message it accepts, parsed.
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export async function startSmtp(o: { user?: string; password?: string } = {}) {
  const mails: ReceivedMail[] = [];
  let refuse = false;
  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS offered (payd is configured with starttls: false).
    disabledCommands: o.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !o.user,
    onAuth(auth, _session, cb) {
      if (auth.username === o.user && auth.password === o.password) cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        if (refuse) return cb(Object.assign(new Error('try again later'), { responseCode: 451 }));
        const parsed = await simpleParser(Buffer.concat(chunks));
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), subject: parsed.subject ?? '', text: parsed.text ?? '' });
        cb();
      });
    },
    logger: false,
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    setRefuse(v: boolean) {
      refuse = v;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
