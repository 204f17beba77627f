import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../../src/slack/kit/parse-command.ts';
import { channelName, channelRef, readAliasUse, readRunLine } from '../../../../src/slack/kit/run-line.ts';

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

describe('one-line runs', () => {
  it('run with key=value inputs (quoted as usual) and --now', () => {
    expect(ok('run "Restart Pods" namespace=prod replicas=3')).toEqual({
      kind: 'run',
      runbook: 'Restart Pods',
      values: { namespace: 'prod', replicas: '3' },
    });
    expect(ok('run Restart Pods namespace="prod west" --now')).toEqual({
      kind: 'run',
      runbook: 'Restart Pods',
      values: { namespace: 'prod west' },
      now: true,
    });
    expect(ok('run “Restart Pods” query=a=b empty=')).toEqual({
      kind: 'run',
      runbook: 'Restart Pods',
      values: { query: 'a=b', empty: '' },
    });
    // Plain runs are unchanged.
    expect(ok('run "Drain Node"')).toEqual({ kind: 'run', runbook: 'Drain Node' });
  });

  it('refuses inputs without a runbook, a value given twice and unknown flags', () => {
    expect(fail('run namespace=prod').error).toMatch(/Name the runbook/);
    expect(fail('run x a=1 a=2').error).toMatch(/`a` is given twice/);
    // The same value twice is no contradiction, as for a flag.
    expect(ok('run x a=1 a=1')).toEqual({ kind: 'run', runbook: 'x', values: { a: '1' } });
    expect(fail('run x --later').error).toMatch(/`--later` is not an option here.*`--now`/);
    expect(fail('run x --now=yes').error).toMatch(/takes no value/);
  });
});

describe('aliases', () => {
  it('alias add with values, proxy and destination', () => {
    expect(ok('alias add Restart-Prod "Restart Pods" namespace=prod --proxy p1 --to <#C02DEPLOYS|deploys>')).toEqual({
      kind: 'alias-add',
      alias: 'restart-prod',
      runbook: 'Restart Pods',
      values: { namespace: 'prod' },
      proxy: 'p1',
      to: 'C02DEPLOYS',
    });
    expect(ok('alias list')).toEqual({ kind: 'alias-list' });
    expect(ok('alias remove restart-prod')).toEqual({ kind: 'alias-remove', alias: 'restart-prod' });
  });

  it('refuses bad names, subcommand names, a missing runbook and a --to that is no channel', () => {
    expect(fail('alias add "two words" x').error).toMatch(/alias name/);
    expect(fail('alias add list x').error).toMatch(/is a subcommand/);
    expect(fail('alias add restart-prod').error).toMatch(/needs the runbook/);
    expect(fail('alias add r x --to deploys').error).toMatch(/needs a channel: `#name`.*not `deploys`/);
    expect(fail('alias add r x --to #two#marks').error).toMatch(/needs a channel/);
    expect(fail('alias ad r x').suggestion).toBe('alias add');
  });

  it('an unknown word may be an alias: the parser says so and keeps the did-you-mean', () => {
    const r = fail('restart-prod replicas=3 --now');
    expect(r.alias).toEqual({ name: 'restart-prod', values: { replicas: '3' }, now: true });
    expect(r.error).toMatch(/neither a \/runbook subcommand nor an alias in this channel/);
    expect(fail('lsit').suggestion).toBe('list');
    expect(fail('two words here').alias).toBeUndefined();
    expect(readAliasUse(['x', '--proxy', 'p'])).toBeNull();
  });
});

describe('channel defaults', () => {
  it('show, set, clear a field, clear all', () => {
    expect(ok('defaults')).toEqual({ kind: 'defaults', proxy: null, to: null, clear: false });
    expect(ok('defaults --proxy p2 --to C01OPS')).toEqual({
      kind: 'defaults',
      proxy: 'p2',
      to: 'C01OPS',
      clear: false,
    });
    // Plain `#name` is what Slack sends with should_escape false; the handler looks it up.
    expect(ok('defaults --to #Deploys')).toEqual({ kind: 'defaults', proxy: null, to: '#deploys', clear: false });
    expect(ok('alias add r x --to #deploys')).toMatchObject({ kind: 'alias-add', to: '#deploys' });
    expect(ok('defaults --to none')).toEqual({ kind: 'defaults', proxy: null, to: 'none', clear: false });
    expect(ok('defaults clear')).toEqual({ kind: 'defaults', proxy: null, to: null, clear: true });
    expect(fail('defaults clear --proxy p').error).toMatch(/clear` alone/);
    expect(fail('defaults a=1').error).toMatch(/takes `--proxy`/);
  });
});

describe('run-line helpers', () => {
  it('channel references', () => {
    expect(channelRef('<#C123ABC|ops>')).toBe('C123ABC');
    expect(channelRef('<#G0PRIV>')).toBe('G0PRIV');
    expect(channelRef('C0AB12')).toBe('C0AB12');
    expect(channelRef('#ops')).toBeNull();
    expect(channelRef('<@U123>')).toBeNull();
    expect(channelName('#Ops-EU_2')).toBe('#ops-eu_2');
    expect(channelName('ops')).toBeNull();
    expect(channelName('#')).toBeNull();
    expect(channelName('<#C123ABC|ops>')).toBeNull();
  });

  it('flags need values', () => {
    expect(readRunLine(['--proxy'], ['proxy'])).toEqual({ ok: false, error: '`--proxy` needs a value.' });
    expect(readRunLine(['a', '--proxy=p', 'k=v'], ['proxy'])).toEqual({
      ok: true,
      line: { words: ['a'], values: { k: 'v' }, now: false, replace: false, proxy: 'p', to: null },
    });
  });

  it('alias add takes --replace (no value); other commands do not', () => {
    expect(ok('alias add scale-web "Scale Kubernetes Deployment" --replace')).toMatchObject({
      kind: 'alias-add',
      alias: 'scale-web',
      replace: true,
    });
    expect(ok('alias add scale-web "Scale Kubernetes Deployment"')).not.toHaveProperty('replace');
    expect(fail('alias add scale-web x --replace=yes').error).toMatch(/`--replace` takes no value/);
    expect(fail('run x --replace').error).toMatch(/`--replace` is not an option here/);
  });
});
