import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { didYouMean, normalizeCommandText, parseCommand, tokenize } from '../../../../src/slack/kit/parse-command.ts';

function ok(text: string) {
  const r = parseCommand(text);
  if (!r.ok) throw new Error(`expected ${text} to parse: ${r.error}`);
  return r.command;
}

function fail(text: string) {
  const r = parseCommand(text);
  if (r.ok) throw new Error(`expected ${text} to fail`);
  return r;
}

describe('parseCommand', () => {
  it('bare command and help', () => {
    expect(ok('')).toEqual({ kind: 'help', topic: null });
    expect(ok('   ')).toEqual({ kind: 'help', topic: null });
    expect(ok('help run')).toEqual({ kind: 'help', topic: 'run' });
    expect(fail('help rnu').suggestion).toBe('run');
  });

  it('list with words, scope and category', () => {
    expect(ok('list')).toEqual({ kind: 'list', query: '', scope: 'all', category: null });
    expect(ok('list kubernetes restart --service')).toEqual({
      kind: 'list',
      query: 'kubernetes restart',
      scope: 'service',
      category: null,
    });
    expect(ok('list --custom --category "cost opt"')).toEqual({
      kind: 'list',
      query: '',
      scope: 'custom',
      category: 'cost opt',
    });
    expect(ok('list --category=sre')).toMatchObject({ category: 'sre' });
    expect(fail('list --service --custom').error).toContain('not both');
    expect(fail('list --category').error).toContain('needs a value');
  });

  it('runbook arguments: quoted, smart-quoted, ids, and Slack-escaped text', () => {
    expect(ok('show "Restart Kubernetes Deployment"')).toEqual({
      kind: 'show',
      runbook: 'Restart Kubernetes Deployment',
    });
    expect(ok('show \u201CRestart Kubernetes Deployment\u201D')).toEqual({
      kind: 'show',
      runbook: 'Restart Kubernetes Deployment',
    });
    expect(ok('show Check &lt;prod&gt; &amp; co')).toEqual({ kind: 'show', runbook: 'Check <prod> & co' });
    expect(ok("run alice's runbook")).toEqual({ kind: 'run', runbook: "alice's runbook" });
    expect(ok('run')).toEqual({ kind: 'run', runbook: null });
    expect(fail('show').error).toContain('needs a runbook');
    expect(fail('show "unclosed').error).toContain('never closed');
  });

  it('executions flags are validated with suggestions', () => {
    expect(ok('executions "Drain Node" --status failed --last month')).toEqual({
      kind: 'executions',
      runbook: 'Drain Node',
      status: 'failed',
      last: 'month',
    });
    expect(ok('executions --status RUNNING')).toMatchObject({ status: 'running' });
    const bad = fail('executions --status faild');
    expect(bad.topic).toBe('executions');
    expect(bad.suggestion).toBe('--status failed');
    const flag = fail('executions --stauts failed');
    expect(flag.suggestion).toBe('--status');
    expect(fail('show x --service').error).toContain('takes no options');
  });

  it('status takes exactly one id', () => {
    expect(ok('status 3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a')).toEqual({
      kind: 'status',
      executionId: '3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a',
    });
    expect(fail('status a b').error).toContain('one execution id');
  });

  it('freezes: a mistyped verb is suggested, a missing runbook or reason is said as such', () => {
    expect(ok('freezes')).toEqual({ kind: 'freezes' });
    expect(ok('freezes break "Restart Pods" --reason "prod is down"')).toMatchObject({
      kind: 'freeze-break',
      reason: 'prod is down',
    });
    expect(fail('freezes brake "Restart Pods" --reason x').suggestion).toBe('freezes break');
    expect(fail('freezes frobnicate').suggestion).toBeNull();
    expect(fail('freezes break --reason "prod is down"').error).toContain('Name the runbook');
    expect(fail('freezes break "Restart Pods"').error).toContain('Say why');
  });

  it('unknown subcommands suggest the closest one', () => {
    const r = fail('lsit');
    expect(r.suggestion).toBe('list');
    expect(r.topic).toBe('list');
    expect(fail('frobnicate').suggestion).toBeNull();
    // inherited object keys are not subcommands
    for (const name of ['__proto__', 'constructor', 'toString'])
      expect(fail(name).error).toContain('neither a /runbook subcommand nor an alias in this channel');
    expect(fail('help constructor').error).toContain('no help topic');
    expect(fail('sched').suggestion).toMatch(/^schedule/);
  });

  it('refuses over-long input without parsing it', () => {
    expect(fail(`list ${'x'.repeat(3000)}`).error).toContain('limit is 2000');
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const r = parseCommand(text);
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 500 },
    );
  });
});

describe('helpers', () => {
  it('tokenize honours quotes and flag values', () => {
    expect(tokenize('a "b c" --x="d e" f\'s')).toEqual(['a', 'b c', '--x=d e', "f's"]);
  });
  it('normalizeCommandText decodes Slack escapes and smart quotes', () => {
    expect(normalizeCommandText(' &lt;a&gt; \u2018b\u2019 \u2014flag ')).toBe("<a> 'b' --flag");
  });
  it('didYouMean only answers for close words', () => {
    expect(didYouMean('exectuions', ['executions', 'list'])).toBe('executions');
    expect(didYouMean('zzz', ['executions', 'list'])).toBeNull();
    // Two characters away but nothing in common: no near miss.
    expect(didYouMean('3x', ['24h', '7d'])).toBeNull();
    expect(didYouMean('7', ['24h', '7d'])).toBe('7d');
  });
});

describe('subscriptions and watch', () => {
  it('parses subscribe with a quoted name, all, and --failures', () => {
    expect(ok('subscribe "Postgres Vacuum Analyze"')).toEqual({
      kind: 'subscribe',
      runbook: 'Postgres Vacuum Analyze',
      failuresOnly: false,
    });
    expect(ok('subscribe all --failures')).toEqual({ kind: 'subscribe', runbook: 'all', failuresOnly: true });
    expect(ok('health "Rotate IAM Access Keys"')).toEqual({
      kind: 'health',
      runbook: 'Rotate IAM Access Keys',
      here: false,
    });
    expect(ok('health "Rotate IAM Access Keys" --here')).toEqual({
      kind: 'health',
      runbook: 'Rotate IAM Access Keys',
      here: true,
    });
    expect(ok('health')).toEqual({ kind: 'health', runbook: null, here: false });
    expect(fail('health --here')).toMatchObject({ topic: 'health' });
    expect(fail('health --here').error).toContain('name the runbook');
    expect(ok('subscribe --failures drain node')).toEqual({
      kind: 'subscribe',
      runbook: 'drain node',
      failuresOnly: true,
    });
  });
  it('needs a runbook for subscribe and unsubscribe, and refuses unknown flags', () => {
    expect(fail('subscribe').error).toContain('needs a runbook');
    expect(fail('unsubscribe').error).toContain('needs a runbook');
    const typo = fail('subscribe all --failure');
    expect(typo.suggestion).toBe('--failures');
    expect(fail('subscribe all --failures=yes').error).toContain('takes no value');
  });
  it('parses unsubscribe and subscriptions', () => {
    expect(ok('unsubscribe all')).toEqual({ kind: 'unsubscribe', runbook: 'all' });
    expect(ok('subscriptions')).toEqual({ kind: 'subscriptions' });
    expect(fail('subscriptions extra').error).toContain('takes no arguments');
  });
  it('parses watch with exactly one execution id', () => {
    expect(ok('watch 3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a')).toEqual({
      kind: 'watch',
      executionId: '3f2b9c1e-0d4a-4c1b-9a57-8f1e2d3c4b5a',
    });
    expect(fail('watch').error).toContain('needs an execution id');
    expect(fail('status').error).toBe('`status` needs an execution id.');
    expect(fail('subscribe').error).toBe('`subscribe` needs a runbook.');
    expect(fail('scale-web').error).toBe('`scale-web` is neither a /runbook subcommand nor an alias in this channel.');
    expect(fail('watch a b').error).toContain('one execution id');
  });
  it('suggests the new subcommands for typos', () => {
    expect(fail('subscirbe all').suggestion).toBe('subscribe');
    expect(fail('wtach 1').suggestion).toBe('watch');
  });
});
