// The console's browser files (src/http/console/static/: the page, its style sheet and the
// parts of its script), read once at start. They are real files so that biome lints them and
// tsc checks the script (static/tsconfig.json: JSDoc types, // @ts-check). Running from src/
// (tsx) they are beside this module; compiled into dist/ (tsc copies no .js or .html of src),
// they are found as src/http/console/static under the package root, which the package ships.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The script's parts, in the order they are served as one script (each holds one concern). */
export const SCRIPT_PARTS = [
  'basics',
  'charts',
  'panels',
  'forms',
  'search',
  'freezes',
  'controls',
  'proposals',
  'wiring',
] as const;

/** The folder of the static files, for a module in `moduleDir`. */
export function staticDirFrom(moduleDir: string): string {
  const beside = join(moduleDir, 'static');
  if (existsSync(beside)) return beside;
  for (let dir = moduleDir; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'src', 'http', 'console', 'static');
    if (dirname(dir) === dir) throw new Error(`no package.json above ${moduleDir} to find the console from`);
  }
}

export interface ConsoleFiles {
  readonly page: string;
  readonly script: string;
  readonly css: string;
}

/** The console's page, its script (the parts joined) and its style sheet. */
export function readConsoleFiles(dir: string = staticDirFrom(dirname(fileURLToPath(import.meta.url)))) {
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return {
    page: read('console.html'),
    script: SCRIPT_PARTS.map((part) => read(`${part}.js`)).join('\n'),
    css: read('console.css'),
  } satisfies ConsoleFiles;
}
