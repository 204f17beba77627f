// The manifests must name exactly what the code handles and the scopes of the Web API methods the
// code calls: no missing scope (a broken feature in a real workspace), no extra one (more access
// than needed).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND, SHORTCUTS } from '../../src/slack/ids.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** Scopes each Web API method needs (methods without an entry need none). */
const SCOPES: Record<string, string[]> = {
  'chat.postMessage': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  'conversations.join': ['channels:join'],
  'conversations.open': ['im:write'],
  'conversations.history': ['channels:history', 'groups:history', 'im:history'],
  'conversations.replies': ['channels:history', 'groups:history', 'im:history'],
  'users.info': ['users:read', 'users:read.email'],
  'users.lookupByEmail': ['users:read.email'],
  'usergroups.users.list': ['usergroups:read'],
  'views.open': [],
  'views.update': [],
  'views.push': [],
  'views.publish': [],
  'auth.test': [],
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
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
    /(?:client|slack)\s*\.(chat|views|users|usergroups|conversations|auth|files)\s*\.\s*([a-zA-Z]+(?:\s*\.\s*[a-zA-Z]+)?)\s*\(/g;
  for (const file of sourceFiles(path.join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(pattern)) methods.add(`${m[1]}.${m[2]!.replace(/\s+/g, '')}`);
  }
  return methods;
}

const manifests = ['manifest.socket.json', 'manifest.http.json'].map((name) => ({
  name,
  json: JSON.parse(readFileSync(path.join(root, 'manifest', name), 'utf8')),
}));

describe('Slack app manifests', () => {
  const methods = methodsCalled();
  const needed = new Set(['commands', ...[...methods].flatMap((m) => SCOPES[m] ?? ['unknown method ' + m])]);

  it('knows every Web API method the code calls', () => {
    for (const m of methods) expect(Object.keys(SCOPES), m).toContain(m);
    expect(methods.has('chat.postMessage')).toBe(true);
  });

  for (const { name, json } of manifests) {
    it(`${name} asks for exactly the scopes the code uses`, () => {
      expect([...json.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
    });

    it(`${name} declares the command, shortcut, interactivity, App Home and its event`, () => {
      expect(json.features.slash_commands.map((c: { command: string }) => c.command)).toEqual([COMMAND]);
      expect(json.features.shortcuts.map((s: { callback_id: string }) => s.callback_id)).toEqual([
        SHORTCUTS.runRunbook,
      ]);
      expect(json.features.app_home.home_tab_enabled).toBe(true);
      expect(json.settings.event_subscriptions.bot_events).toEqual(['app_home_opened']);
      expect(json.settings.interactivity.is_enabled).toBe(true);
    });
  }

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
