// `tokenproxy start`: loads the configuration, starts the service, stops it on SIGINT/SIGTERM.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../config.js';
import { ADMIN_KEY_FILE, startService } from '../service.js';

export async function runStart(argv: readonly string[]): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ argv, env: process.env });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const service = await startService(config, packageVersion());
  const { parts } = service;
  process.stdout.write(
    [
      `tokenproxy ${config.env} running${service.url ? ` at ${service.url}` : ''}`,
      `token ${parts.token.tokenId}`,
      `admin key in ${join(config.dataDir, ADMIN_KEY_FILE)}`,
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const onSignal = () => resolve();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  await service.stop();
  return 0;
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    return pkg.version;
  } catch {
    return '0.0.0-dev';
  }
}
