// /runbook help: every subcommand with what it does and examples, or one subcommand in detail.
// Also the answer to a malformed command: the error, "did you mean", then that subcommand's help.
import type { KnownBlock } from '@slack/types';
import type { SlackMessage } from './common.ts';
import { COMMAND } from './ids.ts';
import { escapeMrkdwn, mrkdwnText, plainText } from './mrkdwn.ts';
import { SUBCOMMAND_NAMES, SUBCOMMANDS, type SubcommandName } from './parse-command.ts';

function usageLine(name: SubcommandName): string {
  const spec = SUBCOMMANDS[name];
  return `\`${COMMAND} ${escapeMrkdwn(spec.usage)}\` — ${escapeMrkdwn(spec.description)}`;
}

function topicBlocks(name: SubcommandName): KnownBlock[] {
  const spec = SUBCOMMANDS[name];
  const flags = spec.flags as ReadonlyArray<{ name: string; description: string }>;
  const lines = [
    `*${COMMAND} ${escapeMrkdwn(spec.usage)}*`,
    escapeMrkdwn(spec.description),
    ...flags.map((f) => `• \`--${escapeMrkdwn(f.name)}\` ${escapeMrkdwn(f.description)}`),
    `_Examples:_ ${spec.examples.map((e) => `\`${COMMAND} ${escapeMrkdwn(e)}\``).join('  ')}`,
  ];
  return [{ type: 'section', text: mrkdwnText(lines.join('\n')) }];
}

export function buildHelp(topic: SubcommandName | null): SlackMessage {
  if (topic) {
    return { text: `Help for ${COMMAND} ${topic}`, blocks: topicBlocks(topic) };
  }
  return {
    text: `${COMMAND} help`,
    blocks: [
      { type: 'header', text: plainText('Runbook bot', 150) },
      {
        type: 'section',
        text: mrkdwnText(SUBCOMMAND_NAMES.map(usageLine).join('\n')),
      },
      {
        type: 'context',
        elements: [
          mrkdwnText(
            `<runbook> is an id or a name (case-insensitive; quote names with spaces). Try \`${COMMAND} list\` to start.`.replace(
              '<runbook>',
              '&lt;runbook&gt;',
            ),
          ),
        ],
      },
    ],
  };
}

/** One short line naming every subcommand, for a word that is none of them. */
function subcommandsLine(): KnownBlock {
  const names = SUBCOMMAND_NAMES.map((n) => `\`${n}\``).join(' ');
  return {
    type: 'context',
    elements: [mrkdwnText(`Subcommands: ${names}. \`${COMMAND} help\` says what each does.`)],
  };
}

/**
 * A malformed command: what was wrong, the closest valid spelling, and that subcommand's help — never the
 * whole help (a mistyped word gets the list of subcommand names in one line).
 */
export function buildCommandError(parse: {
  error: string;
  topic: SubcommandName | null;
  suggestion: string | null;
}): SlackMessage {
  const lines = [`:warning: ${escapeMrkdwn(parse.error)}`];
  if (parse.suggestion) lines.push(`Did you mean \`${escapeMrkdwn(parse.suggestion)}\`?`);
  const help = parse.topic ? topicBlocks(parse.topic) : [subcommandsLine()];
  return {
    text: escapeMrkdwn(parse.error),
    blocks: [{ type: 'section', text: mrkdwnText(lines.join('\n')) }, { type: 'divider' }, ...help],
  };
}
