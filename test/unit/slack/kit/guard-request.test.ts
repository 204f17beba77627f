import { describe, expect, it } from 'vitest';
import { parsesToNonObject } from '../../../../src/slack/kit/guard-request.ts';

describe('parsesToNonObject', () => {
  it('flags bodies Bolt would parse into null or a primitive', () => {
    expect(parsesToNonObject('payload=null', 'application/x-www-form-urlencoded')).toBe(true);
    expect(parsesToNonObject('payload=42', undefined)).toBe(true);
    expect(parsesToNonObject('null', 'application/json')).toBe(true);
    expect(parsesToNonObject('"x"', 'application/json; charset=utf-8')).toBe(true);
  });
  it('lets objects, arrays and unparseable bodies through (Bolt answers those itself)', () => {
    expect(parsesToNonObject('payload=%7B%7D', 'application/x-www-form-urlencoded')).toBe(false);
    expect(parsesToNonObject('payload=[]', undefined)).toBe(false);
    expect(parsesToNonObject('command=%2Frunbook&text=help', undefined)).toBe(false);
    expect(parsesToNonObject('{"type":"event_callback"}', 'application/json')).toBe(false);
    expect(parsesToNonObject('{broken', 'application/json')).toBe(false);
  });
});

describe('readChannel', () => {
  it('takes only a conversation id from the submitted state', async () => {
    const { readChannel } = await import('../../../../src/slack/run/views.ts');
    const state = (value: string) => ({
      meta_channel: { channel_select: { type: 'conversations_select', selected_conversation: value } },
    });
    expect(readChannel(state('C02DEPLOYS') as never)).toBe('C02DEPLOYS');
    expect(readChannel(state('C1> <!channel') as never)).toBeNull();
  });
});
