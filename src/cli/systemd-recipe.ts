/** What systemd/payd.service expects: the config path, the state directory and the credential names. */
export const SYSTEMD = {
  config: '/etc/payd/payd.config.json',
  database: '/var/lib/payd/payd.sqlite',
  credentialsDir: '/etc/payd/credentials',
  bin: '/opt/payd/bin/payd',
  credentials: { imapPassword: 'imap-password', trongridKey: 'trongrid-key', masterKey: 'master-key' },
} as const;

export interface RecipeSecret {
  /** The credential's name (a file in SYSTEMD.credentialsDir, a LoadCredential= of the unit). */
  credential: string;
  /** What the operator puts there, e.g. "IMAP password". */
  what: string;
}

/**
 * The one recipe from a config at hand to a running unit: `payd init --systemd` prints it for
 * the config it wrote, and docs/operations.md's "Running under systemd" shows it for the example config
 * (test/integration/cli-init.test.ts holds the two equal). Run from the payd checkout (/opt/payd).
 * `config`: where the config is now (a path for `install`), or SYSTEMD.config when it is already there.
 */
export function systemdRecipe(options: { config: string; secrets: RecipeSecret[] }): string[] {
  const { credentialsDir: dir, credentials } = SYSTEMD;
  const installConfig =
    options.config === SYSTEMD.config
      ? `sudo chown root:payd ${SYSTEMD.config} && sudo chmod 0640 ${SYSTEMD.config}`
      : `sudo install -m 0640 -o root -g payd ${options.config} ${SYSTEMD.config}`;
  return [
    // The group the next commands give /etc/payd to; harmless when the user exists.
    'id -u payd >/dev/null 2>&1 || sudo useradd --system --home /var/lib/payd --shell /usr/sbin/nologin payd',
    'sudo install -d -m 0750 -o root -g payd /etc/payd',
    // Read by systemd (root) for LoadCredential=, never by the payd user itself.
    `sudo install -d -m 0700 -o root -g root ${dir}`,
    installConfig,
    '# secrets as files readable by root only; systemd hands them to payd as credentials',
    ...options.secrets.map((s) =>
      s.credential === credentials.masterKey
        ? // Never replaced once it exists: a new key would lock out every merchant and webhook secret.
          `sudo test -e ${dir}/${s.credential} || head -c 32 /dev/urandom | base64 | sudo tee ${dir}/${s.credential} >/dev/null`
        : `printf '%s' '<the ${s.what}>' | sudo tee ${dir}/${s.credential} >/dev/null`,
    ),
    `sudo chmod 0600 ${dir}/*`,
    'sudo cp systemd/payd.service /etc/systemd/system/ && sudo systemctl daemon-reload',
    // The unit loads the always-needed credentials; the optional ones (the bot token, SMTP) are commented out there.
    ...optionalCredentialLines(options.secrets.map((s) => s.credential)),
    'sudo systemctl enable --now payd',
    '# commands that use the master key run as the payd user with the unit\'s credential:',
    `sudo systemd-run --quiet --pipe --wait --collect -p User=payd -p LoadCredential=${credentials.masterKey}:${dir}/${credentials.masterKey} ${SYSTEMD.bin} --config ${SYSTEMD.config} merchant create --name "My shop"`,
    'journalctl -u payd -f',
  ];
}

/** Turns on the unit's commented LoadCredential= lines for the optional credentials the config reads. */
function optionalCredentialLines(names: string[]): string[] {
  const optional = names.filter((name) => !(Object.values(SYSTEMD.credentials) as string[]).includes(name));
  if (optional.length === 0) return [];
  const unit = '/etc/systemd/system/payd.service';
  return [...optional.map((name) => `sudo sed -i 's|^#LoadCredential=${name}:|LoadCredential=${name}:|' ${unit}`), 'sudo systemctl daemon-reload'];
}
