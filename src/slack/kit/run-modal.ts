// The run modal: optional runbook picker (typeahead), the runbook's summary, proxy select,
// "post the result to" channel select, then the form generated from the runbook's inputSchema.
import type { InputBlock, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { Workflow } from '../../api/schemas.ts';
import type { ProxyChoices } from '../../catalog/proxy-directory.ts';
import { buildFormBlocks } from '../../forms/form-blocks.ts';
import type { FormSpec } from '../../forms/input-schema.ts';
import { isRunEntry, type RunEntry } from '../../runs/run-entry.ts';
import { ACTIONS, BLOCKS, VIEWS } from './ids.ts';
import { escapeMrkdwn, mrkdwnText, plainText, truncate } from './mrkdwn.ts';
import { isRunnable } from './runbook-list.ts';

/** What a run modal carries between opening and submission. */
export interface RunModalMetadata {
  /** runbook id (null while the picker is empty) */
  r: string | null;
  /** channel the command came from (default destination) */
  c: string | null;
  /** thread the form was opened from (a mention in a thread): the live card goes there */
  t?: string;
  /** permalink of the message the form was opened from (message shortcut), shown on the card */
  s?: string;
  /**
   * the preselected result channel was saved by someone (channel defaults, or alias `a`): channel `c`,
   * saved by `b`. Submitted unchanged, it is judged against `b` (the person who chose it).
   */
  o?: SavedOrigin;
  /** the entry point that opened the form when it is not the form itself (Re-run), named in the run's audit record */
  v?: RunEntry;
}

export interface SavedOrigin {
  c: string;
  b: string;
  a?: string;
}

function savedOrigin(v: unknown): SavedOrigin | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  if (typeof o.c !== 'string' || typeof o.b !== 'string') return null;
  return { c: o.c, b: o.b, ...(typeof o.a === 'string' ? { a: o.a } : {}) };
}

export function encodeRunMetadata(m: RunModalMetadata): string {
  return JSON.stringify(m);
}

export function decodeRunMetadata(raw: string | undefined): RunModalMetadata {
  try {
    const v = JSON.parse(raw ?? '{}') as Partial<RunModalMetadata>;
    return {
      r: typeof v.r === 'string' ? v.r : null,
      c: typeof v.c === 'string' ? v.c : null,
      ...(typeof v.t === 'string' ? { t: v.t } : {}),
      ...(typeof v.s === 'string' ? { s: v.s } : {}),
      ...(savedOrigin(v.o) ? { o: savedOrigin(v.o)! } : {}),
      ...(isRunEntry(v.v) ? { v: v.v } : {}),
    };
  } catch {
    return { r: null, c: null };
  }
}

export function runbookOption(runbook: Pick<Workflow, 'id' | 'name'>): PlainTextOption {
  return { text: plainText(runbook.name || runbook.id, 75), value: runbook.id.slice(0, 150) };
}

export function runbookPickerBlock(runbook: Pick<Workflow, 'id' | 'name'> | null): InputBlock {
  return {
    type: 'input',
    block_id: BLOCKS.runbookPicker,
    dispatch_action: true,
    label: plainText('Runbook', 2000),
    element: {
      type: 'external_select',
      action_id: ACTIONS.runbookPicker,
      placeholder: plainText('Type to search runbooks', 150),
      min_query_length: 0,
      ...(runbook ? { initial_option: runbookOption(runbook) } : {}),
    },
  };
}

export function proxyBlock(proxies: ProxyChoices, selected: string | null): InputBlock {
  const initialId = selected ?? proxies.initial;
  if (proxies.options.length === 0) {
    return {
      type: 'input',
      block_id: BLOCKS.proxy,
      label: plainText('Proxy', 2000),
      hint: plainText('The id of the proxy that runs it. Set RUNBOOK_PROXIES to offer a list here.', 2000),
      element: {
        type: 'plain_text_input',
        action_id: ACTIONS.proxySelect,
        ...(initialId ? { initial_value: initialId } : {}),
        placeholder: plainText('proxy id', 150),
      },
    };
  }
  const options: PlainTextOption[] = proxies.options.map((p) => ({
    text: plainText(p.name === p.id ? p.id : `${p.name} (${p.id})`, 75),
    value: p.id.slice(0, 150),
  }));
  const initial = options.find((o) => o.value === initialId);
  return {
    type: 'input',
    block_id: BLOCKS.proxy,
    label: plainText('Proxy', 2000),
    element: {
      type: 'static_select',
      action_id: ACTIONS.proxySelect,
      placeholder: plainText('Choose a proxy', 150),
      options,
      ...(initial ? { initial_option: initial } : {}),
    },
  };
}

export function channelBlock(channelId: string | null): InputBlock {
  // DMs with the person are not conversations the bot can post to; leave those empty → DM from the bot.
  const initial = channelId && /^[CG]/.test(channelId) ? channelId : null;
  return {
    type: 'input',
    block_id: BLOCKS.channel,
    optional: true,
    label: plainText('Post the result to', 2000),
    hint: plainText('Leave empty to get the result in a direct message.', 2000),
    element: {
      type: 'conversations_select',
      action_id: ACTIONS.channelSelect,
      placeholder: plainText('Choose a channel', 150),
      filter: { include: ['public', 'private'], exclude_bot_users: true },
      ...(initial ? { initial_conversation: initial } : {}),
    },
  };
}

export interface RunModalInput {
  /** null: picker only (bare `/runbook run`). */
  runbook: Workflow | null;
  spec: FormSpec | null;
  proxies: ProxyChoices;
  metadata: RunModalMetadata;
  /** Show the typeahead picker (bare run, shortcut, App Home). */
  withPicker: boolean;
  prefill?: Record<string, unknown>;
  /** The person's Slack time zone, named under date-time pickers. */
  timeZone?: { id: string; label: string } | null;
  proxyId?: string | null;
  /** Extra lines shown above the form (approval, destination). Already escaped mrkdwn. */
  notes?: string[];
  /** Preselected result channel when it differs from where the form was opened (channel defaults). */
  destination?: string | null;
}

export function buildRunModal(input: RunModalInput): ModalView {
  const { runbook, spec } = input;
  const blocks: KnownBlock[] = [];
  if (input.withPicker) blocks.push(runbookPickerBlock(runbook));
  if (runbook && spec) {
    const description = runbook.description ? escapeMrkdwn(truncate(runbook.description, 600)) : '';
    blocks.push({
      type: 'section',
      block_id: 'meta_summary',
      text: mrkdwnText(`*${escapeMrkdwn(truncate(runbook.name, 200))}*${description ? `\n${description}` : ''}`),
    });
    if (input.notes?.length) {
      blocks.push({ type: 'context', block_id: BLOCKS.notice, elements: [mrkdwnText(input.notes.join('\n'))] });
    }
    blocks.push(proxyBlock(input.proxies, input.proxyId ?? null), channelBlock(input.destination ?? input.metadata.c), {
      type: 'divider',
    });
    if (spec.kind === 'empty') {
      blocks.push({
        type: 'section',
        block_id: 'meta_confirm',
        text: mrkdwnText('This runbook takes no input. Press *Run* to start it.'),
      });
    } else {
      blocks.push(...buildFormBlocks(spec, input.prefill, input.timeZone ?? null));
    }
  } else {
    blocks.push({
      type: 'context',
      block_id: 'meta_hint',
      elements: [mrkdwnText('Pick a runbook to see its form.')],
    });
  }
  // A view with input blocks needs a submit button; submitting the bare picker answers "pick a runbook first".
  const canSubmit = runbook ? Boolean(spec && isRunnable(runbook)) : input.withPicker;
  return {
    type: 'modal',
    callback_id: VIEWS.run,
    title: plainText('Run a runbook', 24),
    close: plainText('Cancel', 24),
    ...(canSubmit ? { submit: plainText('Run', 24) } : {}),
    private_metadata: encodeRunMetadata(input.metadata),
    blocks,
  };
}
