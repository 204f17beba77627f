// "Add to Slack" walked the way a browser walks it: the bot's /slack/install page (its state cookie), the
// fake Slack's consent page with a workspace or org picked, and the redirect back to the bot with the
// code, the cookie sent along. The sandbox installs its first workspace this way at start; tests use it
// for every install.

export interface InstallOutcome {
  /** Status and HTML of the page the person ends on (the bot's success or failure page). */
  status: number;
  html: string;
}

const cookieOf = (setCookie: string | null) => setCookie?.split(';')[0] ?? '';

/** Installs the bot at `botOrigin` into `target` (a workspace id, or an enterprise id for an org-wide install). */
export async function installThroughSlack(
  botOrigin: string,
  target: string,
  options: { deny?: boolean } = {},
): Promise<InstallOutcome> {
  const landing = await fetch(`${botOrigin}/slack/install`);
  const cookie = cookieOf(landing.headers.get('set-cookie'));
  const page = await landing.text();
  const href = page.match(/id="add-to-slack" href="([^"]+)"/)?.[1];
  if (!href) throw new Error(`no Add to Slack link on the install page (status ${landing.status})`);
  const authorize = new URL(href.replaceAll('&amp;', '&'));
  authorize.searchParams.set('install_to', target);
  if (options.deny) authorize.searchParams.set('deny', '1');
  const consent = await fetch(authorize, { redirect: 'manual' });
  const location = consent.headers.get('location');
  if (consent.status !== 302 || !location) throw new Error(`Slack's consent page answered ${consent.status}`);
  const back = await fetch(location, { headers: { cookie } });
  return { status: back.status, html: await back.text() };
}
