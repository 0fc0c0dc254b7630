/**
 * E-mail through the operator's SMTP server with nodemailer, loaded at the first message (a
 * daemon without e-mail notifications never loads it).
 */
import type { Secret } from '../../config/secret.ts';

export interface EmailSettings {
  host: string;
  port: number;
  secure?: boolean;
  starttls: boolean;
  user?: string;
  password?: Secret;
  from: string;
}

/** An SMTP refusal: 5xx answers are permanent (the same message is refused again), the rest are retried. */
export class EmailError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    /** nodemailer's code (EAUTH, ESOCKET, EENVELOPE…), when it gave one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'EmailError';
  }
}

export function createEmailSender(settings: EmailSettings) {
  let transport: Promise<import('nodemailer').Transporter> | undefined;
  const open = async () => {
    const { createTransport } = (await import('nodemailer')).default;
    const secure = settings.secure ?? settings.port === 465;
    return createTransport({
      host: settings.host,
      port: settings.port,
      secure,
      // Without implicit TLS: STARTTLS required, or (starttls false) plain SMTP to a relay on this host.
      requireTLS: !secure && settings.starttls,
      ignoreTLS: !secure && !settings.starttls,
      auth: settings.user ? { user: settings.user, pass: settings.password?.reveal() ?? '' } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  };
  return {
    async send(to: string[], subject: string, text: string): Promise<void> {
      transport ??= open();
      try {
        await (await transport).sendMail({ from: settings.from, to, subject, text });
      } catch (err) {
        const e = err as { responseCode?: number; message?: string; code?: string };
        throw new EmailError(`SMTP: ${(e.message ?? String(err)).slice(0, 200)}`, typeof e.responseCode === 'number' && e.responseCode >= 500, e.code);
      }
    },
    /** Connects and logs in (as a send would) without sending anything: `payd doctor`. */
    async verify(): Promise<void> {
      transport ??= open();
      await (await transport).verify();
    },
    close(): void {
      void transport?.then((t) => t.close()).catch(() => {});
    },
  };
}

export type EmailSender = ReturnType<typeof createEmailSender>;
