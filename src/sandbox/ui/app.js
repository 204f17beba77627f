// The sandbox page: sidebar, channel view, composer, modals and App Home, redrawn from
// GET /api/state whenever the server pushes "changed" over SSE. Everything the person does is
// POSTed to the sandbox server, which sends it to the bot exactly as Slack would.
import { collectValues, renderBlocks, renderText } from './blocks.js';
import { formatMessageTime, renderMrkdwn } from './mrkdwn.js';

const HOME = 'home';
const WORKFLOWS = 'workflows';
/** The app's custom step (manifest `functions`), started from the Workflows panel. */
const STEP = 'run_runbook_step';
/** The app's message shortcut (manifest `shortcuts`, type message). */
const MESSAGE_SHORTCUT = { callbackId: 'run_runbook_from_message', name: 'Run a runbook…' };
const params = new URLSearchParams(location.search);
const app = {
  user: params.get('user') ?? localStorage.getItem('sandbox.user') ?? 'U01ALICE',
  channel: params.get('channel') ?? localStorage.getItem('sandbox.channel') ?? 'C01OPS',
  state: null,
  /** Threads the person opened (parent ts). */
  expanded: new Set(),
  /** Private answers already shown: a new one in a thread opens that thread once. */
  seenEphemerals: new Set(),
  /** id+hash of the modal view on screen, so a refresh does not wipe what is being typed. */
  modalKey: '',
  homeKey: '',
  /** Parent ts of the thread the composer replies in, or null. */
  replyTo: null,
  workflowKey: '',
};

const $ = (id) => document.getElementById(id);

function h(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

async function api(path, body) {
  const response = await fetch(`/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: app.user, ...body }),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    toast(answer.error ?? `request failed (${response.status})`);
    throw new Error(answer.error ?? String(response.status));
  }
  if (typeof answer.status === 'number' && answer.status !== 200) {
    toast(`The bot answered HTTP ${answer.status}`);
  }
  scheduleRefresh();
  return answer;
}

let toastTimer;
function toast(text) {
  const t = $('toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    t.hidden = true;
  }, 4000);
}

// ---- refresh loop ---------------------------------------------------------------------------

let inFlight = false;
let again = false;
async function refresh() {
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = true;
  try {
    const response = await fetch(`/api/state?user=${encodeURIComponent(app.user)}`);
    if (response.ok) {
      app.state = await response.json();
      render();
    }
  } finally {
    inFlight = false;
    if (again) {
      again = false;
      refresh();
    }
  }
}
function scheduleRefresh() {
  refresh();
}

// ---- lookups --------------------------------------------------------------------------------

function userName(id) {
  const u = app.state?.users.find((x) => x.id === id);
  return u ? u.real_name : id;
}
function channelName(id) {
  const c = app.state?.channels.find((x) => x.id === id);
  if (c) return c.name;
  return id === app.state?.dm ? 'Runbook Bot' : id;
}
/** The viewer's time zone, as Slack renders <!date^…> tokens for each reader. */
function viewerTimeZone() {
  return app.state?.users.find((x) => x.id === app.user)?.tz;
}
/** A user group's handle, as Slack shows `<!subteam^S…>` (the fake Slack's groups). */
function groupName(id) {
  return app.state?.usergroups?.[id];
}
function baseContext() {
  return {
    userName,
    channelName,
    groupName,
    timeZone: viewerTimeZone(),
    channels: app.state.channels,
    users: app.state.users,
    currentChannel: app.channel === HOME ? undefined : app.channel,
    confirm: askConfirm,
  };
}

// ---- rendering ------------------------------------------------------------------------------

function render() {
  renderSidebar();
  if (app.channel === HOME) renderHome();
  else if (app.channel === WORKFLOWS) renderWorkflows();
  else renderChannel();
  renderModal();
}

function navItem(label, key, prefix) {
  const li = h('li');
  const b = h('button', `nav-item${app.channel === key ? ' active' : ''}`);
  b.type = 'button';
  b.dataset.channel = key;
  b.append(h('span', 'nav-prefix', prefix), h('span', '', label));
  b.addEventListener('click', () => selectChannel(key));
  li.append(b);
  return li;
}

/**
 * Many workspaces (SANDBOX_MANY_WORKSPACES): which workspace you are in, and each workspace with the bot
 * added or, for your own workspace and your org's, an "Add to Slack" link (the bot's install page, in a
 * new tab; on Slack's page pick the workspace, or the Grid org to add it to all of its workspaces at once).
 */
function renderWorkspaces(state) {
  const spaces = state.workspaces;
  $('workspaces-title').hidden = !spaces;
  $('workspace-list').hidden = !spaces;
  if (!spaces) return;
  const me = state.users.find((u) => u.id === app.user);
  const mine = spaces.find((w) => w.id === me?.team_id);
  $('workspace-name').textContent = mine ? mine.name : 'Sandbox workspace';
  $('workspace-list').replaceChildren(
    ...spaces.map((w) => {
      const li = h('li', 'workspace-item', w.id === mine?.id ? `${w.name} (you)` : w.name);
      li.dataset.workspace = w.id;
      if (w.installed) {
        li.append(h('span', 'workspace-added', ' ✓ added'));
        // Your own workspace's admin can remove the app, as in Slack's app settings.
        if (w.id === mine?.id) {
          const remove = h('button', 'remove-app', 'Remove');
          remove.type = 'button';
          // Added org-wide: removing it is the org's, from every one of its workspaces.
          const from = w.orgName ? `${w.orgName} (every workspace)` : w.name;
          remove.title = `Remove Runbook Bot from ${from}`;
          remove.addEventListener('click', async () => {
            const ok = await askConfirm({
              title: { text: `Remove Runbook Bot from ${from}?` },
              text: {
                type: 'plain_text',
                text: `Its tokens stop working at once and the bot is told (app_uninstalled, tokens_revoked). What it keeps for ${w.orgName ? 'the org' : 'this workspace'} (its API connection, aliases, subscriptions, settings) is kept for DATA_RETENTION_DAYS (30 days unless set): Add to Slack within that time finds it again.`,
              },
              confirm: { text: 'Remove' },
              style: 'danger',
            });
            if (ok) api('uninstall', {}).catch(() => {});
          });
          li.append(' ', remove);
        }
      } else if (w.id !== mine?.id && !(w.enterpriseId && w.enterpriseId === mine?.enterpriseId)) {
        // As in Slack, only its own people (or its org's) can add the app to a workspace.
        const none = h('span', 'workspace-added', ' not added');
        none.title = `Only people of ${w.name} can add it: pick one of them under "You are".`;
        li.append(none);
      } else {
        const add = h('a', 'add-to-slack', 'Add to Slack');
        add.href = state.installUrl;
        add.target = '_blank';
        add.rel = 'noopener';
        // (Fake) Slack's consent page then installs as you, as Slack does for the person signed in.
        add.addEventListener('click', () => api('signin', {}).catch(() => {}));
        li.append(' ', add);
      }
      return li;
    }),
  );
}

function renderSidebar() {
  const { state } = app;
  const switcher = $('user-switcher');
  if (switcher.options.length === 0) {
    for (const u of state.users.filter((x) => !x.is_bot)) {
      const where = state.workspaces?.find((w) => w.id === u.team_id);
      const o = h('option', '', `${u.real_name}${u.title ? ` — ${u.title}` : ''}${where ? ` (${where.name})` : ''}`);
      o.value = u.id;
      switcher.append(o);
    }
  }
  switcher.value = app.user;
  renderWorkspaces(state);
  $('channel-list').replaceChildren(...state.channels.map((c) => navItem(c.name, c.id, c.is_private ? '🔒' : '#')));
  $('dm-list').replaceChildren(navItem('Runbook Bot', state.dm, '●'));
  $('app-list').replaceChildren(navItem('Runbook Bot — Home', HOME, '⌂'), navItem('Workflows', WORKFLOWS, '⚡'));
}

function selectChannel(key) {
  app.channel = key;
  app.replyTo = null;
  app.workflowKey = '';
  localStorage.setItem('sandbox.channel', key);
  app.homeKey = '';
  if (key === HOME) api('home', {}).catch(() => {});
  render();
  $('messages').scrollTop = $('messages').scrollHeight;
}

/** Message times in the viewer's Slack time zone, like the date tokens on cards. */
function formatTime(ts) {
  return formatMessageTime(ts, viewerTimeZone());
}

function renderChannel() {
  const { state } = app;
  const channel = state.channels.find((c) => c.id === app.channel);
  const isDm = app.channel === state.dm;
  $('channel-title').textContent = channel ? `# ${channel.name}` : isDm ? 'Runbook Bot' : app.channel;
  $('channel-purpose').textContent = channel?.purpose ?? (isDm ? 'Direct messages with the bot' : '');
  $('composer').hidden = false;
  $('composer-input').placeholder = app.replyTo
    ? 'Reply in the thread — try @runbook-bot run …'
    : `Message ${channel ? `#${channel.name}` : 'Runbook Bot'} — try /runbook help or @runbook-bot help`;
  renderReplyChip();

  const list = state.messages[app.channel] ?? [];
  const replies = new Map();
  const top = [];
  const reply = (threadTs, item) => {
    if (!replies.has(threadTs)) replies.set(threadTs, []);
    replies.get(threadTs).push(item);
  };
  for (const m of list) {
    if (m.thread_ts && m.thread_ts !== m.ts) reply(m.thread_ts, { ts: m.ts, node: () => renderMessage(m, []) });
    else top.push(m);
  }
  // A private answer in a thread (a mention's answer there) shows in that thread, as in Slack.
  const tops = new Set(top.map((m) => m.ts));
  const loose = [];
  for (const e of state.ephemerals.filter((x) => x.channel === app.channel)) {
    const item = { ts: e.ts, node: () => renderEphemeral(e) };
    if (e.thread_ts && tops.has(e.thread_ts)) {
      reply(e.thread_ts, item);
      if (!app.seenEphemerals.has(e.ts)) app.expanded.add(e.thread_ts);
    } else loose.push(item);
    app.seenEphemerals.add(e.ts);
  }
  const items = [
    ...top.map((m) => ({ ts: m.ts, node: () => renderMessage(m, replies.get(m.ts) ?? []) })),
    ...loose,
  ].sort((a, b) => Number.parseFloat(a.ts) - Number.parseFloat(b.ts));

  const box = $('messages');
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  if (items.length === 0) {
    box.replaceChildren(h('div', 'empty', 'No messages yet. Type /runbook list below to browse runbooks.'));
  } else box.replaceChildren(...items.map((i) => i.node()));
  if (atBottom) box.scrollTop = box.scrollHeight;
}

function author(m) {
  if (m.bot_id || m.user === app.state.botUserId) return { name: 'Runbook Bot', bot: true };
  return { name: userName(m.user ?? ''), bot: false };
}

function messageShell(name, bot, ts, extraClass) {
  const e = h('article', `message${extraClass ? ` ${extraClass}` : ''}`);
  e.dataset.ts = ts;
  const slackbot = name === 'Slackbot';
  const avatar = h('div', `avatar${bot ? ' bot' : ''}`, slackbot ? 'SB' : bot ? 'RB' : name.slice(0, 1));
  const content = h('div', 'message-content');
  const meta = h('div', 'message-meta');
  meta.append(h('span', 'author', name));
  if (bot && !slackbot) meta.append(h('span', 'badge', 'APP'));
  meta.append(h('span', 'time', formatTime(ts)));
  content.append(meta);
  e.append(avatar, content);
  return { e, content, meta };
}

function renderBody(content, message, surface) {
  const ctx = {
    ...baseContext(),
    act: (action) => api('action', { surface, ...action }).catch(() => {}),
  };
  if (message.blocks?.length) content.append(renderBlocks(message.blocks, ctx));
  else if (message.text) {
    const text = h('div', 'message-text');
    text.append(renderMrkdwn(message.text, ctx));
    content.append(text);
  }
  for (const attachment of message.attachments ?? []) {
    const a = h('div', 'attachment');
    if (attachment.color)
      a.style.borderLeftColor = /^#?[0-9a-f]{3,6}$/i.test(attachment.color)
        ? `#${attachment.color.replace('#', '')}`
        : '';
    if (attachment.blocks?.length) a.append(renderBlocks(attachment.blocks, ctx));
    else a.append(renderMrkdwn(attachment.text ?? attachment.fallback ?? '', ctx));
    content.append(a);
  }
  for (const file of message.files ?? []) content.append(renderFile(file));
}

/** A file shared with files.completeUploadExternal: name, size, and its text behind a toggle (an image: shown). */
function renderFile(file) {
  if (/^image\/(png|jpeg|gif)$/.test(file.mimetype ?? '') && /^F[A-Z0-9]+$/.test(file.id ?? '')) {
    const figure = h('figure', 'bk-image');
    const img = h('img', '');
    img.src = `/files/${file.id}`;
    img.alt = file.title ?? file.name ?? '';
    figure.append(img);
    return figure;
  }
  const box = h('details', 'file');
  const summary = h('summary', 'file-summary');
  summary.append(h('span', 'file-icon', '📄'), h('span', 'file-name', file.name));
  const lines = typeof file.content === 'string' ? file.content.replace(/\n+$/, '').split('\n').length : 0;
  summary.append(h('span', 'file-meta', `${formatBytes(file.size)} · ${lines} lines · ${file.filetype || 'text'}`));
  box.append(summary);
  const pre = h('pre', 'file-content', file.content ?? '');
  box.append(pre);
  return box;
}

function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function renderMessage(m, threadReplies) {
  const who = author(m);
  const { e, content, meta } = messageShell(who.name, who.bot, m.ts, '');
  if (m.edited) meta.append(h('span', 'edited', '(edited)'));
  meta.append(messageTools(m));
  renderBody(content, m, { kind: 'message', channel: m.channel, ts: m.ts });
  if (threadReplies.length > 0) {
    const open = app.expanded.has(m.ts);
    const toggle = h(
      'button',
      'thread-toggle',
      `${threadReplies.length} ${threadReplies.length === 1 ? 'reply' : 'replies'}`,
    );
    toggle.type = 'button';
    toggle.addEventListener('click', () => {
      if (app.expanded.has(m.ts)) app.expanded.delete(m.ts);
      else app.expanded.add(m.ts);
      render();
    });
    content.append(toggle);
    if (open) {
      const thread = h('div', 'thread');
      const sorted = [...threadReplies].sort((a, b) => Number.parseFloat(a.ts) - Number.parseFloat(b.ts));
      for (const r of sorted) thread.append(r.node());
      content.append(thread);
    }
  }
  return e;
}

/** Reply in thread, and the message's "…" menu with the app's message shortcut. */
function messageTools(m) {
  const tools = h('span', 'message-tools');
  const reply = h('button', 'tool-button', 'Reply');
  reply.type = 'button';
  reply.title = 'Reply in thread';
  reply.addEventListener('click', () => {
    app.replyTo = m.thread_ts ?? m.ts;
    app.expanded.add(app.replyTo);
    render();
    $('composer-input').focus();
  });
  const more = h('button', 'tool-button', '⋯');
  more.type = 'button';
  more.title = 'More actions';
  more.addEventListener('click', () => {
    const menu = h('div', 'tool-menu');
    const item = h('button', 'tool-menu-item', MESSAGE_SHORTCUT.name);
    item.type = 'button';
    item.dataset.shortcut = MESSAGE_SHORTCUT.callbackId;
    item.addEventListener('click', () => {
      menu.remove();
      api('shortcut', {
        surface: { kind: 'message', channel: m.channel, ts: m.ts },
        callbackId: MESSAGE_SHORTCUT.callbackId,
      }).catch(() => {});
    });
    menu.append(h('div', 'tool-menu-title', 'Runbook Bot'), item);
    tools.querySelector('.tool-menu')?.remove();
    tools.append(menu);
  });
  tools.append(reply, more);
  return tools;
}

function renderReplyChip() {
  const chip = $('reply-chip');
  if (!chip) return;
  chip.hidden = !app.replyTo;
  chip.replaceChildren();
  if (!app.replyTo) return;
  const cancel = h('button', 'tool-button', '×');
  cancel.type = 'button';
  cancel.title = 'Stop replying in the thread';
  cancel.addEventListener('click', () => {
    app.replyTo = null;
    render();
  });
  chip.append(h('span', '', 'Replying in a thread'), cancel);
}

// ---- Workflows panel: a workflow with the app's "Run a runbook" step ---------------------------

function field(label, input) {
  const l = h('label', 'wf-field');
  l.append(h('span', 'wf-label', label), input);
  return l;
}

function renderWorkflows() {
  const { state } = app;
  $('channel-title').textContent = 'Workflows';
  $('channel-purpose').textContent = 'Workflow Builder: a workflow whose step is "Run a runbook" (Runbook Bot)';
  $('composer').hidden = true;
  const runs = state.workflowRuns ?? [];
  const key = JSON.stringify(runs.map((r) => [r.id, r.state]));
  const box = $('messages');
  if (key === app.workflowKey && box.querySelector('.workflows')) return;
  app.workflowKey = key;
  const existing = box.querySelector('.workflows');
  if (existing) {
    // Only the runs change: what is being typed in the form stays.
    existing.querySelector('.wf-runs')?.replaceWith(workflowRuns(runs));
    return;
  }
  const root = h('div', 'workflows');
  const form = h('form', 'wf-form');
  form.id = 'workflow-form';
  const runbook = h('input');
  runbook.name = 'runbook';
  runbook.placeholder = 'e.g. Restart Kubernetes Deployment';
  const inputs = h('textarea');
  inputs.name = 'inputs';
  inputs.placeholder = '{"namespace": "prod"}';
  const proxy = h('input');
  proxy.name = 'proxy';
  proxy.placeholder = 'default';
  const channel = h('select');
  channel.name = 'channel';
  channel.append(h('option', '', '(none: a DM to the person)'));
  channel.options[0].value = '';
  for (const c of state.channels) {
    const o = h('option', '', `#${c.name}`);
    o.value = c.id;
    channel.append(o);
  }
  const wait = h('input');
  wait.type = 'checkbox';
  wait.name = 'wait_for_completion';
  wait.checked = true;
  const started = h('select');
  started.name = 'started_by';
  for (const [value, label] of [
    ['person', `by ${userName(app.user)} (a link, button or shortcut)`],
    ['nobody', 'on a schedule (nobody started it)'],
  ]) {
    const o = h('option', '', label);
    o.value = value;
    started.append(o);
  }
  const runAs = h('input');
  runAs.name = 'invoking_user';
  runAs.placeholder = 'empty (old steps set a user id here)';
  const start = h('button', 'bk-button bk-primary', 'Start workflow');
  start.type = 'submit';
  form.append(
    h(
      'p',
      'wf-help',
      'Runs as the person Slack says started the workflow; a scheduled one only as the identity the policy names for that.',
    ),
    field('Started', started),
    field('Run as (old steps; leave empty)', runAs),
    field('Runbook (id or name)', runbook),
    field('Input values (JSON object)', inputs),
    field('Proxy', proxy),
    field('Channel for the live card', channel),
    field('Wait for completion', wait),
    start,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    api('workflow', {
      callbackId: STEP,
      startedBy: started.value,
      inputs: {
        runbook: runbook.value.trim(),
        inputs: inputs.value.trim(),
        proxy: proxy.value.trim(),
        channel: channel.value,
        wait_for_completion: wait.checked,
        invoking_user: runAs.value.trim(),
      },
    }).catch(() => {});
  });
  root.append(form, workflowRuns(runs));
  box.replaceChildren(root);
}

function workflowRuns(runs) {
  const list = h('div', 'wf-runs');
  list.append(h('h2', 'wf-title', 'Step runs'));
  if (runs.length === 0) list.append(h('div', 'empty', 'No workflow has run yet.'));
  for (const run of runs) {
    const item = h('article', `wf-run wf-${run.state}`);
    item.dataset.functionExecutionId = run.id;
    item.append(h('div', 'wf-run-head', `${run.id} — ${run.state}`));
    item.append(h('div', 'wf-run-line', `inputs: ${JSON.stringify(run.inputs)}`));
    if (run.outputs) item.append(h('pre', 'wf-run-outputs', JSON.stringify(run.outputs, null, 2)));
    if (run.error) item.append(h('div', 'wf-run-error', `error: ${run.error}`));
    list.append(item);
  }
  return list;
}

function renderEphemeral(eph) {
  const { e, content, meta } = messageShell(
    eph.from === 'slackbot' ? 'Slackbot' : 'Runbook Bot',
    true,
    eph.ts,
    'ephemeral',
  );
  meta.append(h('span', 'only-you', 'Only visible to you'));
  renderBody(content, eph, { kind: 'ephemeral', ts: eph.ts });
  return e;
}

function renderHome() {
  const { state } = app;
  $('channel-title').textContent = 'Runbook Bot';
  $('channel-purpose').textContent = 'App Home';
  $('composer').hidden = true;
  const box = $('messages');
  const home = state.home;
  // Many workspaces: a workspace the bot is not added to has no Home tab of it.
  const me = state.users.find((u) => u.id === app.user);
  const missing = state.workspaces?.find((w) => w.id === me?.team_id && !w.installed);
  const key = missing ? `missing:${missing.id}` : home ? `${home.id}:${home.hash}` : 'none';
  if (key === app.homeKey) return;
  // Just added (the sidebar's Add to Slack): Home opens now, as it does when you click it.
  if (!missing && app.homeKey.startsWith('missing:')) api('home', {}).catch(() => {});
  app.homeKey = key;
  if (missing) {
    box.replaceChildren(
      h(
        'div',
        'empty not-added',
        `Runbook Bot is not in ${missing.name} yet: click Add to Slack next to it under Workspaces, then open Home again.`,
      ),
    );
    return;
  }
  if (!home) {
    box.replaceChildren(h('div', 'empty', 'Opening the Home tab…'));
    return;
  }
  const root = h('div', 'home');
  const ctx = {
    ...baseContext(),
    values: home.values,
    act: (action) =>
      api('action', { surface: { kind: 'view', viewId: home.id }, values: collectValues(root), ...action }).catch(
        () => {},
      ),
    suggest: (actionId, blockId, query) => api('suggest', { viewId: home.id, actionId, blockId, query }),
  };
  root.append(renderBlocks(home.view.blocks ?? [], ctx));
  box.replaceChildren(root);
}

// ---- modals ---------------------------------------------------------------------------------

function topView() {
  const stack = app.state?.modal ?? [];
  return stack[stack.length - 1];
}

function renderModal() {
  const view = topView();
  const overlay = $('modal-overlay');
  if (!view) {
    overlay.hidden = true;
    app.modalKey = '';
    return;
  }
  overlay.hidden = false;
  const key = `${view.id}:${view.hash}`;
  if (key !== app.modalKey) {
    app.modalKey = key;
    buildModal(view);
  }
  showModalErrors(view.errors ?? {});
}

function buildModal(view) {
  const v = view.view;
  $('modal-title').textContent = v.title?.text ?? '';
  $('modal-back').hidden = (app.state.modal ?? []).length < 2;
  const close = $('modal-close');
  close.textContent = v.close?.text ?? (v.submit ? 'Cancel' : 'Close');
  const submit = $('modal-submit');
  submit.hidden = !v.submit;
  submit.textContent = v.submit?.text ?? '';
  submit.disabled = false;
  const body = $('modal-body');
  const ctx = {
    ...baseContext(),
    values: view.values,
    errors: view.errors,
    act: (action) =>
      api('action', { surface: { kind: 'view', viewId: view.id }, values: collectValues(body), ...action }).catch(
        () => {},
      ),
    suggest: (actionId, blockId, query) => api('suggest', { viewId: view.id, actionId, blockId, query }),
  };
  body.replaceChildren(renderBlocks(v.blocks ?? [], ctx));
}

function showModalErrors(errors) {
  for (const input of $('modal-body').querySelectorAll('.bk-input')) {
    const message = errors[input.dataset.blockId];
    const node = input.querySelector(':scope > .bk-error');
    if (!node) continue;
    node.textContent = message ?? '';
    node.hidden = !message;
    input.classList.toggle('has-error', Boolean(message));
  }
  const general = errors[''];
  $('modal-error').textContent = general ?? '';
  $('modal-error').hidden = !general;
}

async function submitModal() {
  const view = topView();
  if (!view) return;
  const submit = $('modal-submit');
  submit.disabled = true;
  try {
    await api('submit', { viewId: view.id, values: collectValues($('modal-body')) });
  } catch {
    // toast already shown
  } finally {
    submit.disabled = false;
  }
}

async function closeModal() {
  const view = topView();
  if (view) await api('close', { viewId: view.id }).catch(() => {});
}

// ---- confirm dialogs --------------------------------------------------------------------------

function askConfirm(dialog) {
  const d = $('confirm-dialog');
  $('confirm-title').textContent = dialog.title?.text ?? 'Are you sure?';
  $('confirm-text').replaceChildren(
    renderText(dialog.text, { userName, channelName, groupName, timeZone: viewerTimeZone() }, 'div'),
  );
  $('confirm-ok').textContent = dialog.confirm?.text ?? 'Yes';
  $('confirm-ok').className = `bk-button ${dialog.style === 'danger' ? 'bk-danger' : 'bk-primary'}`;
  $('confirm-deny').textContent = dialog.deny?.text ?? 'Cancel';
  return new Promise((resolve) => {
    const done = (answer) => {
      d.close();
      $('confirm-ok').onclick = null;
      $('confirm-deny').onclick = null;
      resolve(answer);
    };
    $('confirm-ok').onclick = () => done(true);
    $('confirm-deny').onclick = () => done(false);
    d.oncancel = () => done(false);
    d.showModal();
  });
}

// ---- composer and wiring --------------------------------------------------------------------

async function sendComposer(event) {
  event.preventDefault();
  const input = $('composer-input');
  const text = input.value.trim();
  if (!text) return;
  input.value = '';
  const channel = app.channel;
  try {
    if (text.startsWith('/')) await api('command', { channel, text });
    else await api('message', { channel, text, ...(app.replyTo ? { thread_ts: app.replyTo } : {}) });
  } catch {
    input.value = text;
  }
}

function start() {
  $('composer').addEventListener('submit', sendComposer);
  $('modal-submit').addEventListener('click', submitModal);
  $('modal-close').addEventListener('click', closeModal);
  $('modal-x').addEventListener('click', closeModal);
  $('modal-back').addEventListener('click', closeModal);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && topView() && !$('confirm-dialog').open) closeModal();
  });
  $('user-switcher').addEventListener('change', (event) => {
    app.user = event.target.value;
    localStorage.setItem('sandbox.user', app.user);
    app.modalKey = '';
    app.homeKey = '';
    if (app.channel === HOME) api('home', {}).catch(() => {});
    refresh();
  });
  const events = new EventSource('/api/events');
  events.addEventListener('changed', scheduleRefresh);
  if (app.channel === HOME) api('home', {}).catch(() => {});
  refresh();
}

start();
