// The environment the deploy files give the service: an env file read as systemd's
// EnvironmentFile= and compose's env_file read it, and what a production secrets file adds
// (/etc/tokenproxy/secrets.env; compose gives the same as files): the database URL and the
// operator and master keys.

/** KEY=value lines (comments and blank lines skipped). */
export function envFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m !== null) env[m[1]!] = m[2]!;
  }
  return env;
}

export const PRODUCTION_SECRETS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ['APPROVER', 'MINT', 'FEE', 'FUNDING', 'MASTER'].map((name, i) => [
      `TOKENPROXY_${name}_KEY`,
      String(i + 1)
        .padStart(2, '0')
        .repeat(32),
    ]),
  ),
  // The database URL holds its password: a secret too.
  DATABASE_URL: 'postgres://tokenproxy:secret@db.internal:5432/tokenproxy',
};
