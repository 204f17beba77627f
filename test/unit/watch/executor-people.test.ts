import { describe, expect, it } from 'vitest';
import { executorPeople } from '../../../src/watch/executor-people.ts';

describe('executorPeople', () => {
  it('maps the executor email Slack knows to its user id, lowercased', async () => {
    const asked: string[] = [];
    const lookup = async (email: string) => {
      asked.push(email);
      return email === 'alice@example.com' ? 'U01ALICE' : null;
    };
    expect(await executorPeople(lookup, ' Alice@Example.com ')).toEqual(new Map([['alice@example.com', 'U01ALICE']]));
    expect(await executorPeople(lookup, 'bob@example.com')).toBeUndefined();
    expect(asked).toEqual(['alice@example.com', 'bob@example.com']);
  });

  it('asks nothing for API key names or without a lookup, and a failing lookup leaves the email', async () => {
    let calls = 0;
    const lookup = async () => {
      calls++;
      return 'U01ALICE';
    };
    expect(await executorPeople(lookup, 'ci-api-key')).toBeUndefined();
    expect(await executorPeople(lookup, '')).toBeUndefined();
    expect(calls).toBe(0);
    expect(await executorPeople(null, 'alice@example.com')).toBeUndefined();
    expect(
      await executorPeople(async () => {
        throw new Error('ratelimited');
      }, 'alice@example.com'),
    ).toBeUndefined();
  });
});
