// The manifests must name exactly what the code handles and the scopes of the Web API methods the
// code calls: no missing scope (a broken feature in a real workspace), no extra one (more access
// than needed).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { FEATURE_LISTENERS } from '../../src/slack/app.ts';
import { BOT_SCOPES, REDIRECT_PATH, TEAM_ACCESS_EVENTS, UNINSTALL_EVENTS } from '../../src/slack/installs.ts';
import { COMMAND, FUNCTIONS, SHORTCUTS, STEP_INPUTS, STEP_OUTPUTS } from '../../src/slack/kit/ids.ts';
import { SUBCOMMAND_NAMES } from '../../src/slack/kit/parse-command.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** Scopes each Web API method needs (methods without an entry need none). */
const SCOPES: Record<string, string[]> = {
  'chat.postMessage': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  'conversations.join': ['channels:join'],
  'conversations.info': ['channels:read', 'groups:read'],
  'users.conversations': ['channels:read', 'groups:read'],
  'conversations.list': ['channels:read', 'groups:read'],
  'conversations.open': ['im:write'],
  'conversations.history': ['channels:history', 'groups:history', 'im:history'],
  'conversations.replies': ['channels:history', 'groups:history', 'im:history'],
  'users.info': ['users:read', 'users:read.email'],
  'users.lookupByEmail': ['users:read.email'],
  'usergroups.users.list': ['usergroups:read'],
  'usergroups.list': ['usergroups:read'],
  'auth.teams.list': [],
  'views.open': [],
  'views.update': [],
  'views.push': [],
  'views.publish': [],
  'auth.test': [],
  'chat.getPermalink': [],
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
  'functions.completeSuccess': [],
  'functions.completeError': [],
};

/** Scopes each Events API event needs (app.event listeners in the code). */
const EVENT_SCOPES: Record<string, string[]> = {
  app_home_opened: [],
  app_mention: ['app_mentions:read'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return ['sandbox', 'emulator'].includes(name) ? [] : sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

function methodsCalled(): Set<string> {
  const methods = new Set<string>();
  const pattern =
    /(?:client|slack)\s*\.(chat|views|users|usergroups|conversations|auth|functions|files)\s*\.\s*([a-zA-Z]+(?:\s*\.\s*[a-zA-Z]+)?)\s*\(/g;
  for (const file of sourceFiles(path.join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(pattern)) methods.add(`${m[1]}.${m[2]!.replace(/\s+/g, '')}`);
  }
  return methods;
}

const registrations = Object.values(FEATURE_LISTENERS).flat();

/** Events the code listens to (event registrations of the features). */
function eventsHandled(): string[] {
  return [...new Set(registrations.flatMap((r) => (r.kind === 'event' ? [r.event] : [])))].sort();
}

/** Workflow Builder steps the code handles (function registrations of the features). */
function functionsHandled(): string[] {
  return registrations.flatMap((r) => (r.kind === 'function' ? [r.callbackId] : []));
}

const MANY = 'manifest.many-workspaces.json';
const MANY_SOCKET = 'manifest.many-workspaces.socket.json';
const manifests = ['manifest.socket.json', 'manifest.http.json', MANY, MANY_SOCKET].map((name) => ({
  name,
  json: JSON.parse(readFileSync(path.join(root, 'manifest', name), 'utf8')),
}));

describe('Slack app manifests', () => {
  const methods = methodsCalled();
  const events = eventsHandled();
  const needed = new Set([
    'commands',
    ...[...methods].flatMap((m) => SCOPES[m] ?? ['unknown method ' + m]),
    ...events.flatMap((e) => EVENT_SCOPES[e] ?? ['unknown event ' + e]),
  ]);

  it('knows every Web API method the code calls', () => {
    for (const m of methods) expect(Object.keys(SCOPES), m).toContain(m);
    expect(methods.has('chat.postMessage')).toBe(true);
  });

  // Slack's published manifest schema for _metadata.major_version 1, vendored verbatim from
  // slackapi/manifest-schema (schemas/manifest.schema.1.0.0.json, MIT; see the LICENSE beside it).
  const schema = JSON.parse(
    readFileSync(path.join(import.meta.dirname, 'fixtures/slack-manifest-schema/manifest.schema.1.0.0.json'), 'utf8'),
  );
  const ajv = new Ajv({ allErrors: true, strict: false });
  (addFormatsModule as unknown as (ajv: Ajv) => Ajv)(ajv);
  const validate = ajv.compile(schema);

  it('the vendored schema refuses what Slack refuses', () => {
    const http = manifests.find((m) => m.name === 'manifest.http.json')!.json;
    expect(validate({ ...http, surprise: true })).toBe(false);
    const long = structuredClone(http);
    long.features.slash_commands[0].usage_hint = 'x'.repeat(1001);
    expect(validate(long)).toBe(false);
    const { display_information: _, ...nameless } = http;
    expect(validate(nameless)).toBe(false);
  });

  for (const { name, json } of manifests) {
    it(`${name} is valid against Slack's manifest schema`, () => {
      expect(json._metadata.major_version).toBe(1);
      const ok = validate(json);
      expect(validate.errors ?? [], name).toEqual([]);
      expect(ok).toBe(true);
    });

    it(`${name} lists every subcommand in the usage hint`, () => {
      const hint: string = json.features.slash_commands[0].usage_hint;
      expect(hint.split('|').map((s) => s.trim())).toEqual(SUBCOMMAND_NAMES);
    });

    it(`${name} asks for exactly the scopes the code uses`, () => {
      expect([...json.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
    });

    it(`${name} declares the command, shortcuts, interactivity, App Home and the events the code handles`, () => {
      expect(json.features.slash_commands.map((c: { command: string }) => c.command)).toEqual([COMMAND]);
      expect(
        json.features.shortcuts.map((s: { callback_id: string; type: string }) => [s.callback_id, s.type]),
      ).toEqual([
        [SHORTCUTS.runRunbook, 'global'],
        [SHORTCUTS.runFromMessage, 'message'],
      ]);
      expect(json.features.app_home.home_tab_enabled).toBe(true);
      // Many workspaces also hears when an installation ends, and when an org-wide one loses or gets back a
      // workspace (each handled before any listener, installs.ts: the same lists).
      const expected =
        name === MANY || name === MANY_SOCKET ? [...events, ...UNINSTALL_EVENTS, ...TEAM_ACCESS_EVENTS].sort() : events;
      expect([...json.settings.event_subscriptions.bot_events].sort()).toEqual(expected);
      expect(events).toEqual(['app_home_opened', 'app_mention']);
      expect(json.settings.interactivity.is_enabled).toBe(true);
    });

    it(`${name} declares the Workflow Builder step the code handles, with its inputs and outputs`, () => {
      expect(Object.keys(json.functions)).toEqual(Object.values(FUNCTIONS));
      for (const id of Object.values(FUNCTIONS)) expect(functionsHandled()).toContain(id);
      const step = json.functions[FUNCTIONS.runRunbook];
      expect(Object.keys(step.input_parameters).sort()).toEqual(Object.values(STEP_INPUTS).sort());
      expect(Object.keys(step.output_parameters).sort()).toEqual(Object.values(STEP_OUTPUTS).sort());
      for (const [key, p] of Object.entries<{ name: string }>(step.input_parameters)) expect(p.name).toBe(key);
      // Custom steps need an org-ready app whose functions run remotely (in this process).
      expect(json.settings.org_deploy_enabled).toBe(true);
      expect(json.settings.function_runtime).toBe('remote');
      expect(registrations.some((r) => r.kind === 'shortcut' && r.callbackId === SHORTCUTS.runFromMessage)).toBe(true);
    });
  }

  it('the many-workspace manifest is HTTP with the OAuth redirect, token rotation and exactly the scopes an install asks for', () => {
    const many = manifests.find((m) => m.name === MANY)!.json;
    const http = manifests.find((m) => m.name === 'manifest.http.json')!.json;
    expect(many.oauth_config.redirect_urls).toEqual([`https://runbook-bot.example.com${REDIRECT_PATH}`]);
    expect(many.settings.token_rotation_enabled).toBe(true);
    expect(many.settings.org_deploy_enabled).toBe(true);
    expect(many.settings.socket_mode_enabled).toBe(false);
    expect([...BOT_SCOPES].sort()).toEqual([...needed].sort());
    expect([...many.oauth_config.scopes.bot].sort()).toEqual([...BOT_SCOPES].sort());
    // Everything else is the HTTP manifest's.
    expect(many.features).toEqual(http.features);
    expect(many.functions).toEqual(http.functions);
  });

  it('the many-workspace Socket Mode manifest is the Socket Mode one with the OAuth redirect, token rotation and the end of an installation', () => {
    const many = manifests.find((m) => m.name === MANY_SOCKET)!.json;
    const socket = manifests.find((m) => m.name === 'manifest.socket.json')!.json;
    expect(many.settings.socket_mode_enabled).toBe(true);
    // The install pages are served over HTTP in Socket Mode too: Slack sends people back to this URL.
    expect(many.oauth_config.redirect_urls).toEqual([`https://runbook-bot.example.com${REDIRECT_PATH}`]);
    expect(many.settings.token_rotation_enabled).toBe(true);
    expect([...many.oauth_config.scopes.bot].sort()).toEqual([...BOT_SCOPES].sort());
    // No request URL anywhere: everything else arrives over the socket.
    expect(JSON.stringify(many)).not.toContain('/slack/events');
    expect(many.features).toEqual(socket.features);
    expect(many.functions).toEqual(socket.functions);
    expect(many.settings.interactivity).toEqual(socket.settings.interactivity);
  });

  it('HTTP mode sends commands, interactivity, options and events to /slack/events', () => {
    const http = manifests.find((m) => m.name === 'manifest.http.json')!.json;
    const urls = [
      http.features.slash_commands[0].url,
      http.settings.event_subscriptions.request_url,
      http.settings.interactivity.request_url,
      http.settings.interactivity.message_menu_options_url,
    ];
    for (const url of urls) expect(url).toMatch(/^https:\/\/[^/]+\/slack\/events$/);
    expect(http.settings.socket_mode_enabled).toBe(false);
    const socket = manifests.find((m) => m.name === 'manifest.socket.json')!.json;
    expect(socket.settings.socket_mode_enabled).toBe(true);
  });
});
