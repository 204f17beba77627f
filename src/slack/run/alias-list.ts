// A channel's saved runs (aliases) and its run defaults, as ephemeral answers.
import type { ChannelDefaults, RunAlias } from '../../store/saved-runs.ts';
import type { SlackMessage } from '../kit/common.ts';
import { channelMention, escapeMrkdwn, mrkdwnText, truncate } from '../kit/mrkdwn.ts';
import { type ProxyRef, proxyText } from '../kit/people.ts';

/** A proxy's display name by id (the proxy directory's nameOf); null: only the id is known. */
export type ProxyNames = (id: string) => string | null;

const MAX_SHOWN = 40;

function valuesOf(alias: RunAlias): string {
  try {
    const values = JSON.parse(alias.params) as Record<string, unknown>;
    const parts = Object.entries(values).map(([k, v]) => `${k}=${String(v)}`);
    return parts.length ? parts.join(' ') : '';
  } catch {
    return '';
  }
}

/** `broken`: alias name → why its saved result channel no longer passes (a sentence, sealed mentions kept). */
export function buildAliasList(
  aliases: RunAlias[],
  proxyNames: ProxyNames = () => null,
  broken: ReadonlyMap<string, string> = new Map(),
): SlackMessage {
  if (aliases.length === 0) {
    return {
      text: 'No aliases in this channel',
      blocks: [
        {
          type: 'section',
          text: mrkdwnText(
            'No aliases in this channel yet. Save one with `/runbook alias add &lt;alias&gt; &lt;runbook&gt; [key=value …]`.',
          ),
        },
      ],
    };
  }
  const lines = aliases.slice(0, MAX_SHOWN).map((a) => {
    const values = valuesOf(a);
    const extras = [
      values ? `\`${escapeMrkdwn(truncate(values, 200))}\`` : '',
      a.proxyId ? `proxy ${proxyText({ id: a.proxyId, name: proxyNames(a.proxyId) })}` : '',
      a.resultChannel ? `→ ${channelMention(a.resultChannel)}` : '',
    ].filter(Boolean);
    const problem = broken.get(a.name);
    const warning = problem ? `\n    :warning: *Broken:* ${escapeMrkdwn(problem)}` : '';
    return `• \`${escapeMrkdwn(a.name)}\` — *${escapeMrkdwn(truncate(a.runbookName, 100))}*${extras.length ? ` ${extras.join(' ')}` : ''}${warning}`;
  });
  if (aliases.length > MAX_SHOWN) lines.push(`_…and ${aliases.length - MAX_SHOWN} more_`);
  return {
    text: `${aliases.length} ${aliases.length === 1 ? 'alias' : 'aliases'} in this channel`,
    blocks: [
      {
        type: 'section',
        text: mrkdwnText(`*Aliases in this channel* — use one with \`/runbook &lt;alias&gt; [key=value …] [--now]\``),
      },
      { type: 'section', text: mrkdwnText(truncate(lines.join('\n'), 2900)) },
    ],
  };
}

/**
 * The channel's run defaults; without a default proxy it names the bot's (`botDefault`), never "the usual
 * default". Proxies are shown by their display name, as cards show them.
 */
export function buildChannelDefaults(
  defaults: ChannelDefaults | null,
  botDefault: ProxyRef | null = null,
  proxyNames: ProxyNames = () => null,
  /** Why the saved result channel no longer passes (a sentence), shown as broken; null when fine. */
  problem: string | null = null,
): SlackMessage {
  const proxy = defaults?.proxyId
    ? proxyText({ id: defaults.proxyId, name: proxyNames(defaults.proxyId) })
    : botDefault
      ? `${proxyText(botDefault)} (the bot's default)`
      : "the bot's default";
  const where = defaults?.resultChannel ? channelMention(defaults.resultChannel) : 'this channel';
  return {
    text: 'Run defaults of this channel',
    blocks: [
      {
        type: 'section',
        text: mrkdwnText(
          `*Run defaults of this channel*: proxy ${proxy}, results to ${where}. Change them with \`/runbook defaults --proxy ID --to #channel\` (\`none\` clears one) or \`/runbook defaults clear\`.`,
        ),
      },
      ...(problem
        ? [
            {
              type: 'section' as const,
              text: mrkdwnText(`:warning: *Broken:* ${escapeMrkdwn(truncate(problem, 2900))}`),
            },
          ]
        : []),
    ],
  };
}
