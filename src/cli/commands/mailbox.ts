import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { PaydError } from '../../domain/errors.ts';
import { microsoftEndpoints, PROVIDER_PRESETS, PROVIDERS, type ProviderName } from '../../config/oauth-providers.ts';
import { builtinMethods } from '../../methods/registry.ts';
import type { MailboxAuthorizer, MethodDescriptor } from '../../methods/method.ts';
import { systemRandom } from '../../system.ts';
import { resolveConfig, type CliEnv } from '../context.ts';
import { writeSecretFile } from '../secret-file.ts';
import { leaf, type Opts } from './leaf.ts';

const GOOGLE_REDIRECT = 'http://127.0.0.1:8400/';

const provider = (value: string): ProviderName => {
  if (!(PROVIDERS as readonly string[]).includes(value)) throw new InvalidArgumentError('expected google or microsoft');
  return value as ProviderName;
};

/** The method read from a mailbox (its descriptor's `mailbox`): the one this command signs in for. */
const mailboxMethod = builtinMethods.list.find((m): m is MethodDescriptor & { mailbox: MailboxAuthorizer } => m.mailbox !== undefined);

/** clientId / clientSecret from the mailbox method's section of a config that loads. */
function clientFromConfig(m: MethodDescriptor & { mailbox: MailboxAuthorizer }, g: Opts, e: CliEnv): { clientId?: string; clientSecret?: string } {
  try {
    const section = resolveConfig(g, e).config.methods[m.id];
    return section ? m.mailbox.client(section) : {};
  } catch {
    return {}; // e.g. the refresh token file named in the config does not exist yet
  }
}

export function mailboxCommands(program: Command, env: CliEnv): void {
  const m = mailboxMethod;
  if (!m) return;
  const path = m.mailbox.imapPath;
  const mailbox = program.command('mailbox').description(`the ${m.id} alert mailbox`);
  leaf(mailbox.command('authorize'))
    .description('connect a Gmail / Google Workspace or Microsoft 365 mailbox: get its OAuth 2.0 refresh token (once)')
    .requiredOption('--provider <name>', 'google or microsoft', provider)
    .option('--client-id <id>', `OAuth client id (default: ${path}.auth.clientId)`)
    .option('--client-secret <secret>', `OAuth client secret, Google only (default: ${path}.auth.clientSecret, else $PAYD_OAUTH_CLIENT_SECRET)`)
    .option('--tenant <tenant>', 'Microsoft: directory (tenant) id or domain', 'common')
    .option('--login-hint <address>', 'the mailbox address, to preselect the account')
    .option('--out <file>', 'write the refresh token to this file (mode 0600) instead of printing it')
    .option('--token-url <url>', 'token endpoint (default: the provider\'s)')
    .option('--device-url <url>', 'Microsoft: device authorization endpoint (default: the tenant\'s)')
    .option('--auth-url <url>', 'Google: authorization endpoint (default: Google\'s)')
    .option('--redirect-uri <uri>', 'Google: loopback redirect registered for the client', GOOGLE_REDIRECT)
    .action(async (o: Opts, cmd: Command) => {
      const name = o.provider as ProviderName;
      const preset = PROVIDER_PRESETS[name];
      const fromConfig = o.clientId ? {} : clientFromConfig(m, cmd.optsWithGlobals(), env);
      const clientId = (o.clientId as string | undefined) ?? fromConfig.clientId;
      if (!clientId) throw new PaydError('INVALID_REQUEST', 'no OAuth client id: pass --client-id (see docs/methods/upi.md, "Gmail, Google Workspace and Microsoft 365")');
      const clientSecret = (o.clientSecret as string | undefined) ?? fromConfig.clientSecret ?? env.env.PAYD_OAUTH_CLIENT_SECRET;
      if (preset.needsClientSecret && !clientSecret) throw new PaydError('INVALID_REQUEST', 'Google needs the OAuth client secret: pass --client-secret or set $PAYD_OAUTH_CLIENT_SECRET');
      const tenantUrls = microsoftEndpoints(o.tenant as string);
      const tokenUrl = (o.tokenUrl as string | undefined) ?? (name === 'microsoft' ? tenantUrls.tokenUrl : preset.tokenUrl);
      const prompt = (text: string) => env.io.err(text);
      const result = await m.mailbox.authorize({
        provider: name,
        tokenUrl,
        clientId,
        clientSecret: name === 'microsoft' ? (o.clientSecret as string | undefined) : clientSecret,
        scope: preset.scope,
        deviceUrl: (o.deviceUrl as string | undefined) ?? tenantUrls.deviceUrl,
        authUrl: (o.authUrl as string | undefined) ?? preset.authUrl ?? '',
        redirectUri: o.redirectUri as string,
        random: systemRandom,
        loginHint: o.loginHint as string | undefined,
        prompt,
        // Loaded on use, like the flows: the prompts library is only for the Google flow's pasted URL.
        readLine: async (message) => (env.prompter ?? (await import('@inquirer/prompts'))).input({ message, required: true }),
      });

      const snippet = (refreshToken: object) =>
        JSON.stringify(
          {
            type: 'oauth2',
            provider: name,
            // A single-tenant Microsoft app cannot use the "common" endpoint of the preset.
            ...(tokenUrl !== preset.tokenUrl ? { tokenUrl } : {}),
            clientId,
            ...(name === 'google' ? { clientSecret: { env: 'PAYD_OAUTH_CLIENT_SECRET' } } : {}),
            refreshToken,
          },
          null,
          2,
        );
      if (o.out) {
        const file = resolve(env.cwd, o.out as string);
        const mode = writeSecretFile(file, result.refreshToken + '\n');
        env.io.out(`Signed in. The refresh token is in ${file} (mode ${mode}). Put this under ${path} as "auth" (and remove "password"):`);
        env.io.out(snippet({ file }));
      } else {
        env.io.out(`Signed in. Refresh token (keep it secret; store it like a password):\n${result.refreshToken}\n`);
        env.io.out(`Put this under ${path} as "auth" (and remove "password"), with the token in that environment variable:`);
        env.io.out(snippet({ env: 'PAYD_IMAP_REFRESH_TOKEN' }));
      }
      if (result.scope && !result.scope.split(' ').some((s) => preset.scope.split(' ').includes(s)))
        env.io.err(`warning: the provider granted the scope "${result.scope}", not ${preset.scope}: IMAP sign-in may be refused`);
    });
}
