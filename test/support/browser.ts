// The browser the e2e tests drive through playwright-core: the system's Chromium
// (/usr/bin/chromium, Debian's package) when it launches, else the Chromium that the
// `@sparticuz/chromium` package ships inside its tarball (a headless build, brotli-compressed, with
// the NSS libraries and a font it needs). Nothing is downloaded: the packaged one is inflated once
// into the tests' cache under the system temp directory. Launch failures are errors, never skips.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { inflate } from '@sparticuz/chromium';
import { type Browser, chromium } from 'playwright-core';
import { buildOnce, cachePath } from './build-once.ts';

export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

/** Inflates the packaged Chromium once; returns its folder: chromium, al2023/lib, fonts/, fonts.conf. */
async function packagedChromium(): Promise<string> {
  const packageDir = path.resolve(path.dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..');
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const dir = cachePath(`chromium-${version}`);
  return buildOnce(dir, async (staging) => {
    // The package inflates into the system temp directory, read from TMPDIR as each call starts.
    mkdirSync(staging);
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = staging;
    let inflating: Promise<string>[];
    try {
      const files = ['chromium.br', 'al2023.tar.br', 'fonts.tar.br', 'swiftshader.tar.br'];
      inflating = files.map((file) => inflate(path.join(packageDir, 'bin', file)));
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
    // Every inflation settles before a failure is thrown, so none writes into a folder being removed.
    for (const result of await Promise.allSettled(inflating)) if (result.status === 'rejected') throw result.reason;
    // The shipped fonts.conf names the serverless platforms' folders; this one names ours.
    const conf = [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      '<fontconfig>',
      `  <dir>${dir}/fonts</dir>`,
      '  <dir>/usr/share/fonts</dir>',
      `  <cachedir>${dir}/fonts-cache</cachedir>`,
      '</fontconfig>',
    ];
    writeFileSync(path.join(staging, 'fonts.conf'), `${conf.join('\n')}\n`);
  });
}

/** The Chromium shipped in `@sparticuz/chromium`, inflated on first use. */
export async function launchPackagedChromium(): Promise<Browser> {
  const dir = await packagedChromium();
  return chromium.launch({
    executablePath: path.join(dir, 'chromium'),
    args: ARGS,
    env: {
      ...process.env,
      LD_LIBRARY_PATH: path.join(dir, 'al2023', 'lib'),
      FONTCONFIG_FILE: path.join(dir, 'fonts.conf'),
    },
  });
}

/** Launches the system's Chromium if it starts, else the packaged one; says which. */
export async function launchChromium(): Promise<Browser> {
  let systemFailure = `${SYSTEM_CHROMIUM} is not installed`;
  if (existsSync(SYSTEM_CHROMIUM)) {
    try {
      const browser = await chromium.launch({ executablePath: SYSTEM_CHROMIUM, args: ARGS });
      console.log(`Browser for the tests: ${SYSTEM_CHROMIUM} (Chromium ${browser.version()})`);
      return browser;
    } catch (err) {
      systemFailure = `${SYSTEM_CHROMIUM} did not launch (${firstLine(err)})`;
    }
  }
  try {
    const browser = await launchPackagedChromium();
    console.log(`Browser for the tests: the packaged Chromium ${browser.version()} (${systemFailure})`);
    return browser;
  } catch (err) {
    throw new Error(
      `Could not launch a Chromium: ${systemFailure}, and the packaged one failed (${firstLine(err)}); run \`npm ci\` again or install Debian's (\`apt-get install -y chromium\`).`,
    );
  }
}
