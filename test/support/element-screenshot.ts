// A screenshot of one element of the sandbox's page. The page redraws its message list as messages arrive
// or are edited, so the element found may be replaced while Playwright waits for it to be stable
// ("Element is not attached to the DOM"): the locator is resolved again and the shot retried, a few times.
import type { Locator } from 'playwright-core';

export async function screenshotOf(locator: Locator, path: string, attempts = 5): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await locator.screenshot({ path });
      return;
    } catch (err) {
      if (attempt >= attempts || !/not attached to the DOM/.test(String(err))) throw err;
    }
  }
}
