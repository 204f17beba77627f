import { expect, it } from 'vitest';
import { Workflow } from '../../../src/api/schemas.ts';
import { rankByRelevance, relevance } from '../../../src/catalog/relevance.ts';

const rb = (name: string, description = '', tags: string[] = []) =>
  Workflow.parse({ id: name, name, description, tags });

it('ranks name matches before description matches before tag matches', () => {
  const items = [
    rb('Find Crashlooping Pods', 'Lists pods that restart too often', ['kubernetes']),
    rb('Rotate Certificates', 'Rotates TLS certs', ['restart']),
    rb('Restart Pods', 'Deletes pods so they come back'),
    rb('Rolling Restart of a Deployment', 'kubectl rollout'),
  ];
  const ranked = rankByRelevance(items, ['restart'], (r) => r).map((r) => r.name);
  expect(ranked).toEqual([
    'Restart Pods',
    'Rolling Restart of a Deployment',
    'Find Crashlooping Pods',
    'Rotate Certificates',
  ]);
  expect(relevance(rb('Restart Pods'), ['restart', 'pods'])).toBe(0);
  expect(rankByRelevance(items, [], (r) => r)).toEqual(items);
});
