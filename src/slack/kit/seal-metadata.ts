// One mechanism for every modal: private_metadata is sealed on the way out (views.open / update /
// push through the request's client) and opened on the way in (any payload carrying a view). A
// payload whose seal does not verify never reaches a listener: a crafted submission cannot switch
// the runbook, the schedule or the destination of a run. With many workspaces the seal is bound to the
// installation Bolt authorized the request for, so another installation's form is refused the same way.
import type { AnyMiddlewareArgs, App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../logger.ts';
import { installationFromAuthorization } from '../../tenants/installation.ts';
import { errorModal } from './common.ts';
import type { MetadataSeal } from './metadata-seal.ts';

const SEALED = Symbol('runbook-bot.sealed-views');
/** The installation the client's views are sealed for: set per request (a client serves one token). */
const SCOPE = Symbol('runbook-bot.seal-scope');

type ViewArgs = { view?: { private_metadata?: string } } & Record<string, unknown>;

type SealedClient = WebClient & { [SEALED]?: boolean; [SCOPE]?: string };

function sealClient(client: WebClient, seal: MetadataSeal, scope: string): void {
  const marked = client as SealedClient;
  marked[SCOPE] = scope;
  if (marked[SEALED]) return;
  marked[SEALED] = true;
  for (const method of ['open', 'update', 'push'] as const) {
    const original = client.views[method].bind(client.views) as unknown as (args: ViewArgs) => Promise<unknown>;
    (client.views as unknown as Record<string, (args: ViewArgs) => Promise<unknown>>)[method] = (args: ViewArgs) => {
      const metadata = args.view?.private_metadata;
      if (!metadata) return original(args);
      return original({ ...args, view: { ...args.view, private_metadata: seal.seal(metadata, marked[SCOPE]) } });
    };
  }
}

/** `scoped`: many workspaces, where each installation's forms are sealed for it alone. */
export function registerMetadataSeal(app: App, seal: MetadataSeal, logger: Logger, scoped = false): void {
  app.use(async (args) => {
    const { body, client, context, next } = args as AnyMiddlewareArgs & {
      client: WebClient;
      context: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean };
      next: () => Promise<void>;
    };
    const scope = scoped ? (installationFromAuthorization(context)?.id ?? '') : '';
    sealClient(client, seal, scope);
    const view = (body as { view?: { private_metadata?: unknown } }).view;
    const metadata = view?.private_metadata;
    if (view && metadata !== undefined && metadata !== '') {
      // Anything but a string (a number, an object, null) was not made by us: it fails like a bad seal.
      const opened = typeof metadata === 'string' ? seal.open(metadata, scope) : null;
      if (opened === null) {
        const type = (body as { type?: string }).type;
        logger.warn({ type }, 'refused a payload whose private_metadata seal does not verify');
        const ack = (args as { ack?: (response?: unknown) => Promise<void> }).ack;
        if (type === 'view_submission') {
          await ack?.({
            response_action: 'update',
            view: errorModal('Form refused', 'This form could not be verified, so nothing was done. Open it again.'),
          });
        } else if (type === 'block_suggestion') {
          await ack?.({ options: [] });
        } else {
          await ack?.();
        }
        return;
      }
      view.private_metadata = opened;
    }
    await next();
  });
}
