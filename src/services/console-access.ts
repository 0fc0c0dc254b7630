import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { writeTx, type Db } from '../db/open.ts';
import { PaydError } from '../domain/errors.ts';
import { isoUtc } from '../domain/iso-time.ts';
import type { Clock, Random } from '../domain/ports.ts';
import { audit } from '../db/audit.ts';

/** The WebAuthn library (and its ASN.1 stack, ~1.8 MB) loads at the first passkey ceremony, not at every start. */
const webauthn = () => import('@simplewebauthn/server');

/** An invite link works this long, ms (15 minutes). */
export const INVITE_MS = 15 * 60_000;
/** A passkey prompt must be answered within this, ms. */
const CHALLENGE_MS = 5 * 60_000;
/** last_seen_at is written at most this often per session, ms (not on every page view). */
const TOUCH_MS = 60_000;
/**
 * At most this many sign-in prompts wait for an answer: anyone may ask for one, so beyond it the
 * oldest go (a flood costs a prompt its 5 minutes, never the table unbounded growth).
 */
export const MAX_PENDING_LOGINS = 1_000;

/** Who the browser is talking to: passkeys are bound to `id` (a host name) and `origin`. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export interface ConsoleSession {
  id: string;
  csrf: string;
  /** The passkey's name ("Asha's phone"): the audit log's actor is `console:<name>`. */
  name: string;
}

/** A new session: the cookie's token (never stored; only its hash is). */
export interface IssuedSession extends ConsoleSession {
  token: string;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const denied = (why: string) => new PaydError('FORBIDDEN', why);

/**
 * Who may use the operator console: single-use invites that register one passkey each,
 * passkey sign-in, and server-side sessions (revocable, idle timeout, absolute lifetime). WebAuthn itself is
 * @simplewebauthn/server; this module keeps its state (challenges, credentials, sessions).
 */
export function createConsoleAccess(deps: { db: Db; clock: Clock; random: Random; idleMs: number; maxSessionMs: number }) {
  const token = (n: number) => b64url(deps.random.bytes(n));

  const audited = (actor: string, action: string, subject: string | null, details?: Record<string, unknown>) => audit(deps.db, { at: deps.clock.now(), actor, action, subject, details });

  /** Takes a challenge (once): true only for an unexpired one of this purpose (and invite). */
  async function takeChallenge(challenge: string, purpose: 'register' | 'login', inviteHash: string | null): Promise<boolean> {
    let q = deps.db.deleteFrom('console_challenges').where('challenge', '=', challenge).where('purpose', '=', purpose).where('expires_at', '>', deps.clock.now());
    q = inviteHash === null ? q : q.where('invite_hash', '=', inviteHash);
    const r = await q.executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  async function storeChallenge(challenge: string, purpose: 'register' | 'login', inviteHash: string | null) {
    const now = deps.clock.now();
    // Expired ones go as new ones come: the table stays as small as the prompts in progress.
    await deps.db.deleteFrom('console_challenges').where('expires_at', '<=', now).execute();
    await deps.db.insertInto('console_challenges').values({ challenge, purpose, invite_hash: inviteHash, expires_at: now + CHALLENGE_MS }).execute();
    if (purpose === 'login') {
      // The newest MAX_PENDING_LOGINS stay (ties on expires_at broken by the challenge itself).
      const edge = await deps.db.selectFrom('console_challenges').select(['expires_at', 'challenge']).where('purpose', '=', 'login').orderBy('expires_at', 'desc').orderBy('challenge', 'desc').limit(1).offset(MAX_PENDING_LOGINS - 1).executeTakeFirst();
      if (edge) {
        await deps.db
          .deleteFrom('console_challenges')
          .where('purpose', '=', 'login')
          .where((eb) => eb.or([eb('expires_at', '<', edge.expires_at), eb.and([eb('expires_at', '=', edge.expires_at), eb('challenge', '<', edge.challenge)])]))
          .execute();
      }
    }
  }

  async function openInvite(inviteToken: string) {
    const hash = sha256(inviteToken);
    const row = await deps.db.selectFrom('console_invites').selectAll().where('token_hash', '=', hash).executeTakeFirst();
    if (!row || row.used_at !== null || row.expires_at <= deps.clock.now()) throw denied('this invite link is used, expired or unknown: ask for a new one (payd console invite)');
    return { hash, name: row.name };
  }

  async function newSession(tx: Db, passkeyId: string, address: string | null, now: number): Promise<{ id: string; token: string; csrf: string }> {
    const s = { id: `cs_${Buffer.from(deps.random.bytes(8)).toString('hex')}`, token: token(32), csrf: token(32) };
    await tx.insertInto('console_sessions').values({ id: s.id, token_hash: sha256(s.token), passkey_id: passkeyId, csrf: s.csrf, address, created_at: now, last_seen_at: now, revoked_at: null }).execute();
    return s;
  }

  /** Verifies a passkey's answer to a stored prompt and opens a session. */
  async function signIn(response: AuthenticationResponseJSON, rp: RelyingParty, address: string | null): Promise<IssuedSession> {
    const key = typeof response?.id === 'string' ? await deps.db.selectFrom('console_passkeys').selectAll().where('id', '=', response.id).executeTakeFirst() : undefined;
    if (!key || key.revoked_at !== null) throw denied('this passkey is not registered here, or was revoked');
    let verified;
    try {
      verified = await (await webauthn()).verifyAuthenticationResponse({
        response,
        expectedChallenge: (c) => takeChallenge(c, 'login', null),
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
        credential: { id: key.id, publicKey: new Uint8Array(Buffer.from(key.public_key, 'base64url')), counter: key.counter, transports: key.transports ? JSON.parse(key.transports) : undefined },
      });
    } catch (err) {
      throw denied(`the passkey was not accepted: ${(err as Error).message}`);
    }
    if (!verified.verified) throw denied('the passkey was not accepted');
    const now = deps.clock.now();
    const s = await writeTx(deps.db, async (tx) => {
      await tx.updateTable('console_passkeys').set({ counter: verified.authenticationInfo.newCounter, last_used_at: now }).where('id', '=', key.id).execute();
      const session = await newSession(tx, key.id, address, now);
      await audit(tx, { at: now, actor: `console:${key.name}`, action: 'console.sign-in', subject: session.id });
      return session;
    });
    return { ...s, name: key.name };
  }

  return {
    /** `payd console invite --name …`: a token for one passkey registration, valid 15 minutes. */
    async invite(name: string): Promise<{ token: string; expiresAt: number }> {
      const clean = name.trim();
      if (!clean || clean.length > 100) throw new PaydError('INVALID_REQUEST', '--name must be 1 to 100 characters (e.g. "Asha\'s phone")');
      const t = token(24);
      const now = deps.clock.now();
      await deps.db.insertInto('console_invites').values({ token_hash: sha256(t), name: clean, created_at: now, expires_at: now + INVITE_MS, used_at: null }).execute();
      await audited('cli', 'console.invite', null, { name: clean });
      return { token: t, expiresAt: now + INVITE_MS };
    },

    /** The invite's name, or FORBIDDEN when the link cannot be used. */
    async inviteName(inviteToken: string): Promise<string> {
      return (await openInvite(inviteToken)).name;
    },

    async registrationOptions(inviteToken: string, rp: RelyingParty) {
      const invite = await openInvite(inviteToken);
      const options = await (await webauthn()).generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userName: invite.name,
        userID: new Uint8Array(deps.random.bytes(16)),
        attestationType: 'none',
        // A discoverable credential: signing in later needs no user name.
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        timeout: CHALLENGE_MS,
      });
      await storeChallenge(options.challenge, 'register', invite.hash);
      return options;
    },

    /** Registers the passkey, uses up the invite and signs the new device in, in one transaction. */
    async register(inviteToken: string, response: RegistrationResponseJSON, rp: RelyingParty, address: string | null): Promise<IssuedSession> {
      const invite = await openInvite(inviteToken);
      let verified;
      try {
        verified = await (await webauthn()).verifyRegistrationResponse({
          response,
          expectedChallenge: (c) => takeChallenge(c, 'register', invite.hash),
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: true,
        });
      } catch (err) {
        throw denied(`the passkey was not accepted: ${(err as Error).message}`);
      }
      if (!verified.verified) throw denied('the passkey was not accepted');
      const cred = verified.registrationInfo.credential;
      const now = deps.clock.now();
      const s = await writeTx(deps.db, async (tx) => {
        const used = await tx.updateTable('console_invites').set({ used_at: now }).where('token_hash', '=', invite.hash).where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirst();
        if (Number(used.numUpdatedRows) !== 1) throw denied('this invite link was used meanwhile');
        await tx
          .insertInto('console_passkeys')
          .values({ id: cred.id, name: invite.name, public_key: b64url(cred.publicKey), counter: cred.counter, transports: cred.transports ? JSON.stringify(cred.transports) : null, created_at: now, last_used_at: now, revoked_at: null })
          .execute();
        const session = await newSession(tx, cred.id, address, now);
        await audit(tx, { at: now, actor: `console:${invite.name}`, action: 'console.register', subject: session.id, details: { passkey: cred.id } });
        return session;
      });
      return { ...s, name: invite.name };
    },

    async loginOptions(rp: RelyingParty) {
      // No allowCredentials: the phone offers the passkeys it holds for this host.
      const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required', timeout: CHALLENGE_MS });
      await storeChallenge(options.challenge, 'login', null);
      return options;
    },

    /** A passkey sign-in; a refused one is written to the audit log (who tried from where, and why) before it is answered. */
    async login(response: AuthenticationResponseJSON, rp: RelyingParty, address: string | null): Promise<IssuedSession> {
      try {
        return await signIn(response, rp, address);
      } catch (err) {
        if (err instanceof PaydError && err.code === 'FORBIDDEN') {
          const passkey = typeof response?.id === 'string' ? response.id.slice(0, 200) : null;
          await audited('console:anonymous', 'console.sign-in-failed', null, { address, passkey, why: err.message.slice(0, 300) });
        }
        throw err;
      }
    },

    /** The form's CSRF token is the session's, compared in constant time. */
    csrfMatches(s: ConsoleSession, given: string | null | undefined): boolean {
      if (typeof given !== 'string') return false;
      return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(s.csrf).digest());
    },

    /** The live session a cookie's token names, or null (unknown, revoked, idle too long, past its lifetime, passkey revoked). */
    async session(cookieToken: string | undefined): Promise<ConsoleSession | null> {
      if (!cookieToken || cookieToken.length > 100) return null;
      const row = await deps.db
        .selectFrom('console_sessions as s')
        .innerJoin('console_passkeys as p', 'p.id', 's.passkey_id')
        .select(['s.id', 's.csrf', 's.created_at', 's.last_seen_at', 's.revoked_at', 'p.name', 'p.revoked_at as passkey_revoked_at'])
        .where('s.token_hash', '=', sha256(cookieToken))
        .executeTakeFirst();
      const now = deps.clock.now();
      if (!row || row.revoked_at !== null || row.passkey_revoked_at !== null || now - row.last_seen_at > deps.idleMs || now - row.created_at > deps.maxSessionMs) return null;
      if (now - row.last_seen_at > TOUCH_MS) await deps.db.updateTable('console_sessions').set({ last_seen_at: now }).where('id', '=', row.id).execute();
      return { id: row.id, csrf: row.csrf, name: row.name };
    },
    async signOut(s: ConsoleSession): Promise<void> {
      await deps.db.updateTable('console_sessions').set({ revoked_at: deps.clock.now() }).where('id', '=', s.id).where('revoked_at', 'is', null).execute();
      await audited(`console:${s.name}`, 'console.sign-out', s.id);
    },

    /** `payd console sessions`: newest first, with the passkey each signed in with. */
    async sessions() {
      const now = deps.clock.now();
      const rows = await deps.db
        .selectFrom('console_sessions as s')
        .innerJoin('console_passkeys as p', 'p.id', 's.passkey_id')
        .select(['s.id', 'p.name', 's.address', 's.created_at', 's.last_seen_at', 's.revoked_at', 'p.revoked_at as passkey_revoked_at'])
        .orderBy('s.created_at', 'desc')
        .limit(200)
        .execute();
      return rows.map((r) => ({
        session_id: r.id,
        passkey: r.name,
        address: r.address,
        signed_in_at: isoUtc(r.created_at),
        last_seen_at: isoUtc(r.last_seen_at),
        state: r.revoked_at !== null || r.passkey_revoked_at !== null ? 'revoked' : now - r.created_at > deps.maxSessionMs ? 'expired' : now - r.last_seen_at > deps.idleMs ? 'idle' : 'active',
      }));
    },

    /**
     * `payd console revoke <session>`: that session ends at its next request. With `passkey`,
     * the passkey it signed in with is revoked too (a lost phone): every session of it ends
     * and it cannot sign in again.
     */
    async revoke(sessionId: string, o: { passkey?: boolean; actor?: string } = {}): Promise<{ session_id: string; passkey: string | null }> {
      const row = await deps.db.selectFrom('console_sessions').select(['id', 'passkey_id']).where('id', '=', sessionId).executeTakeFirst();
      if (!row) throw new PaydError('NOT_FOUND', `no console session ${sessionId} (payd console sessions lists them)`);
      const now = deps.clock.now();
      await deps.db.updateTable('console_sessions').set({ revoked_at: now }).where('id', '=', row.id).where('revoked_at', 'is', null).execute();
      let passkey: string | null = null;
      if (o.passkey) {
        await deps.db.updateTable('console_passkeys').set({ revoked_at: now }).where('id', '=', row.passkey_id).where('revoked_at', 'is', null).execute();
        passkey = (await deps.db.selectFrom('console_passkeys').select('name').where('id', '=', row.passkey_id).executeTakeFirstOrThrow()).name;
      }
      await audited(o.actor ?? 'cli', o.passkey ? 'console.revoke-passkey' : 'console.revoke', row.id, o.passkey ? { passkey: row.passkey_id } : undefined);
      return { session_id: row.id, passkey };
    },
  };
}

export type ConsoleAccess = ReturnType<typeof createConsoleAccess>;
