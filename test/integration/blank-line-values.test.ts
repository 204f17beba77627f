// `key=` (or `key="  "`) on a line counts as not given, as a blank field of the form does: a required input
// left blank is refused with --now instead of confirmed and run with an empty value. Through Bolt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, waitFor } from '../support/bot-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('a blank value on a line', () => {
  it.each([
    ['run "Scale Kubernetes Deployment" namespace=web deployment= replicas=3 --now', 'deployment: Required'],
    ['run "Scale Kubernetes Deployment" namespace=web deployment="  " replicas=3 --now', 'deployment: Required'],
    ['run "Check Disk Usage on Hosts" hosts= --now', 'hosts: Required'],
  ])('/runbook %s is refused: %s', async (line, sentence) => {
    const before = h.fake.state.ephemerals.length;
    await h.user().command(line, 'C01OPS');
    const answer = await waitFor(() => h.fake.state.ephemerals[before], 'the answer');
    expect(answer.text).toContain('Nothing ran');
    expect(answer.text).toContain(sentence);
  });

  it('an input with a default left blank takes its default, as the form does', async () => {
    const before = h.fake.state.ephemerals.length;
    await h.user().command('run "Scale Kubernetes Deployment" namespace= deployment=api replicas=3 --now', 'C01OPS');
    const confirm = await waitFor(() => h.fake.state.ephemerals[before], 'the confirmation');
    expect(JSON.stringify(confirm.blocks)).toContain('*Namespace*: `default`');
  });

  it('an optional input left blank takes its default too', async () => {
    const before = h.fake.state.ephemerals.length;
    await h.user().command('run "Check Disk Usage on Hosts" hosts=web-1 ssh_user= --now', 'C01OPS');
    const confirm = await waitFor(() => h.fake.state.ephemerals[before], 'the confirmation');
    expect(JSON.stringify(confirm.blocks)).toContain('*SSH user*: `ops`');
  });
});

describe('a date and time on a line', () => {
  it('a refused one says the form it takes, and that form, typed back, is taken', async () => {
    const line = 'run "Create Maintenance Window" title=x environments=staging --now start_time=';
    let before = h.fake.state.ephemerals.length;
    // A date alone is no date-time (a date-time without an offset is read in the person's zone: line-reads-as-form).
    await h.user().command(`${line}2026-12-01`, 'C01OPS');
    const refused = await waitFor(() => h.fake.state.ephemerals[before], 'the refusal');
    const example = /e\.g\. (\S+?)\)?\./.exec(refused.text)?.[1];
    expect(example, refused.text).toBeDefined();
    before = h.fake.state.ephemerals.length;
    await h.user().command(`${line}${example}`, 'C01OPS');
    const confirm = await waitFor(() => h.fake.state.ephemerals[before], 'the confirmation');
    expect(confirm.text).toContain('Run Create Maintenance Window now?');
  });
});
