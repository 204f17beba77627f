// `.ci/run` asks this before the tests: can the Chromium shipped in the npm package serve on this
// machine? Exits 0 when it launches and renders a page, else 1 (then CI installs Debian's).
import { launchPackagedChromium } from './browser.ts';

try {
  const browser = await launchPackagedChromium();
  const page = await browser.newPage();
  await page.setContent('<p id="ok">packaged</p>');
  const text = await page.textContent('#ok');
  await browser.close();
  if (text !== 'packaged') throw new Error(`the page rendered ${JSON.stringify(text)}`);
  console.log(`The packaged Chromium ${browser.version()} serves the browser tests.`);
} catch (err) {
  console.log(`The packaged Chromium cannot serve here: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
