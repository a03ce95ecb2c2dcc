// Debian's Chromium driven by playwright-core, for the browser suites: the suite is skipped
// when /usr/bin/chromium is missing (`apt-get install chromium`), or fails under CI; a headless
// page in a fresh profile, closed with its profile removed.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const missing = !existsSync(CHROMIUM);

/** The suite's `skip` option: the reason when Chromium is missing outside CI, else false. */
export const skipWithoutChromium: string | false =
  missing && process.env.CI === undefined
    ? `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run the browser tests`
    : false;

/** Flags every suite's Chromium takes (a suite adds its own). */
const BASE_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];

export interface Browser {
  /** Its first page. */
  readonly page: Page;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** Starts a headless Chromium in a fresh profile; fails (under CI) when it is missing. */
export async function openChromium(options: {
  readonly viewport: { readonly width: number; readonly height: number };
  readonly args?: readonly string[];
}): Promise<Browser> {
  if (missing)
    assert.fail(`${CHROMIUM} is missing and CI is set: install it (apt-get install chromium) on the CI host`);
  const profile = mkdtempSync(join(tmpdir(), 'tokenproxy-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...BASE_ARGS, ...(options.args ?? [])],
      viewport: options.viewport,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    return {
      page,
      async close() {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}
