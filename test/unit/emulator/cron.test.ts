import { describe, expect, it } from 'vitest';
import { nextFireAfter, parseCron } from '../../../src/emulator/cron.ts';

describe('parseCron', () => {
  it.each(['0 5 * * *', '*/15 * * * *', '0 9 * * MON-FRI', '30 2 1,15 JAN,JUL *', '0 0-6/2 * * 0'])(
    'accepts %s',
    (expression) => {
      expect(() => parseCron(expression)).not.toThrow();
    },
  );

  it.each([
    ['', /found 0 fields/],
    ['* * * *', /found 4 fields/],
    ['0 0 1 1 * *', /found 6 fields/],
    ['@daily', /found 1 field/],
    ['61 * * * *', /minute/],
    ['0 5 * * FOO', /unknown name "FOO"/],
    ['0 5 ? * *', /unsupported characters/],
  ])('rejects %j', (expression, why) => {
    expect(() => parseCron(expression)).toThrow(why);
    try {
      parseCron(expression);
    } catch (error) {
      expect((error as { code: number }).code).toBe(3);
      expect((error as Error).message).toMatch(/^schedule: invalid cron expression/);
    }
  });

  it('evaluates in UTC', () => {
    const cron = parseCron('0 5 * * *');
    expect(new Date(nextFireAfter(cron, Date.UTC(2025, 0, 1, 4, 59))!).toISOString()).toBe('2025-01-01T05:00:00.000Z');
    expect(new Date(nextFireAfter(cron, Date.UTC(2025, 0, 1, 5, 0))!).toISOString()).toBe('2025-01-02T05:00:00.000Z');
  });
});
