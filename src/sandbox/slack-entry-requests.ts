// Inbound payloads for the entry points beyond /runbook: `app_mention` events (someone typed
// `@runbook-bot …` in a channel or a thread) and message shortcuts (`message_action`, the "…" menu
// of a message). Shapes follow Slack's payload reference; send them with slack-requests.ts
// (eventCallbackBody + jsonRequest, interactivityBody + formRequest). The function_executed event of
// a Workflow Builder step comes from the fake itself (`fake.startFunction`).
import type { InteractionActor } from './slack-requests.ts';

const DEFAULT_VERIFICATION_TOKEN = 'sandboxVerificationToken';

/** The inner event of a mention: text as Slack sends it, `<@BOTID> …`; thread_ts only inside a thread. */
export function appMentionEvent(p: {
  userId: string;
  teamId: string;
  channelId: string;
  /** What the person typed after the mention. */
  text: string;
  botUserId: string;
  ts: string;
  threadTs?: string;
}): Record<string, unknown> {
  const text = `<@${p.botUserId}> ${p.text}`;
  return {
    type: 'app_mention',
    user: p.userId,
    text,
    ts: p.ts,
    team: p.teamId,
    channel: p.channelId,
    event_ts: p.ts,
    ...(p.threadTs ? { thread_ts: p.threadTs } : {}),
    blocks: [
      {
        type: 'rich_text',
        block_id: p.ts.replace('.', '').slice(-5),
        elements: [
          {
            type: 'rich_text_section',
            elements: [
              { type: 'user', user_id: p.botUserId },
              { type: 'text', text: ` ${p.text}` },
            ],
          },
        ],
      },
    ],
  };
}

export interface MessageShortcutInput extends InteractionActor {
  callbackId: string;
  triggerId: string;
  responseUrl: string;
  channel: { id: string; name: string };
  /** The message the shortcut was used on. */
  message: { ts: string; text: string; user?: string; thread_ts?: string; bot_id?: string };
  nowMs?: number;
}

/** A message shortcut: `type: message_action`, with the message, its channel and a response_url. */
export function messageShortcutPayload(p: MessageShortcutInput): Record<string, unknown> {
  const name = p.userName ?? p.userId.toLowerCase();
  return {
    type: 'message_action',
    token: p.token ?? DEFAULT_VERIFICATION_TOKEN,
    action_ts: ((p.nowMs ?? Date.now()) / 1000).toFixed(6),
    team: { id: p.teamId, domain: p.teamDomain ?? 'sandbox' },
    user: { id: p.userId, username: name, name, team_id: p.teamId },
    channel: p.channel,
    is_enterprise_install: p.isEnterpriseInstall === true,
    enterprise: p.enterpriseId ? { id: p.enterpriseId } : null,
    callback_id: p.callbackId,
    trigger_id: p.triggerId,
    response_url: p.responseUrl,
    message_ts: p.message.ts,
    message: { type: 'message', ...p.message },
  };
}
