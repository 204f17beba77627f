import { describe, expect, it } from 'vitest';
import { suffixed } from '../../../../src/slack/kit/listen.ts';

describe('suffixed: a family of action ids', () => {
  it('matches `<id>_<anything>`, never the bare id nor a longer id', () => {
    const page = suffixed('list_page');
    expect(['list_page_prev', 'list_page_next', 'list_page_3'].every((id) => page.test(id))).toBe(true);
    expect(['list_page', 'list_pages_next', 'x_list_page_next'].some((id) => page.test(id))).toBe(false);
  });

  it('with a suffix pattern, the whole suffix must match it', () => {
    const pick = suffixed('subscription_pick', '\\d+');
    expect(pick.test('subscription_pick_0')).toBe(true);
    expect(pick.test('subscription_pick_12')).toBe(true);
    expect(pick.test('subscription_pick_1x')).toBe(false);
    expect(pick.test('subscription_pick_')).toBe(false);
  });
});
