import { describe, expect, it } from 'vitest';
import { Workflow } from '../../../src/api/schemas.ts';
import { buildCatalog } from '../../../src/emulator/catalog.ts';
import { START_MS } from './harness.ts';

const catalog = buildCatalog(START_MS);
const service = catalog.filter((r) => r.isService);
const custom = catalog.filter((r) => !r.isService);
// biome-ignore lint/suspicious/noExplicitAny: walking arbitrary JSON Schema
type Prop = Record<string, any>;
const properties: Prop[] = catalog.flatMap((r) =>
  r.workflow.inputSchema ? Object.values(JSON.parse(r.workflow.inputSchema).properties as Record<string, Prop>) : [],
);

describe('seeded catalog', () => {
  it('has at least 40 service runbooks with sha256-style ids and 10 custom ones with UUIDs', () => {
    expect(service.length).toBeGreaterThanOrEqual(40);
    expect(custom).toHaveLength(10);
    for (const r of service) expect(r.workflow.id).toMatch(/^[0-9a-f]{64}$/);
    for (const r of custom)
      expect(r.workflow.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(catalog.map((r) => r.workflow.id)).size).toBe(catalog.length);
  });

  it('is deterministic for a given start time', () => {
    expect(buildCatalog(START_MS).map((r) => r.workflow)).toEqual(catalog.map((r) => r.workflow));
  });

  it('produces workflows the client schema reads back unchanged', () => {
    for (const r of catalog) expect(Workflow.parse(r.workflow)).toEqual(r.workflow);
  });

  it('covers the categories, connectors and flags the bot must render', () => {
    const categories = new Set(catalog.flatMap((r) => r.workflow.categories));
    for (const c of ['SECOPS', 'CLOUDOPS', 'DEVOPS', 'SRE', 'COST_OPT', 'IAM', 'TROUBLESHOOTING']) {
      expect(categories).toContain(`CATEGORY_TYPE_${c}`);
    }
    const connectors = new Set(catalog.flatMap((r) => r.workflow.connectorTypes));
    for (const c of ['AWS', 'GCP', 'K8S', 'POSTGRESQL', 'SLACK', 'SSH'])
      expect(connectors).toContain(`CONNECTOR_TYPE_${c}`);
    for (const r of catalog) expect(r.workflow.icon).toBe(r.workflow.connectorTypes[0]);
    expect(catalog.some((r) => r.workflow.requiresApproval)).toBe(true);
    expect(catalog.some((r) => r.workflow.runningDisabled)).toBe(true);
    expect(catalog.some((r) => r.workflow.executionDisabled)).toBe(true);
    expect(catalog.some((r) => r.workflow.proxyId !== '')).toBe(true);
    expect(
      catalog.some((r) => r.workflow.environmentStatus.some((e) => e.status === 'NotReady' && e.reason.length > 0)),
    ).toBe(true);
    expect(catalog.some((r) => /[<>&"]/.test(r.workflow.name))).toBe(true);
    expect(catalog.some((r) => r.workflow.inputSchema === '')).toBe(true);
    expect(catalog.some((r) => r.seed.longOutput)).toBe(true);
  });

  it('has input schemas covering every parameter type', () => {
    const has = (predicate: (p: Prop) => boolean) => properties.some(predicate);
    expect(has((p) => p.type === 'string' && !p.format && !p.enum)).toBe(true);
    expect(has((p) => p.type === 'string' && (p.maxLength > 200 || p.format === 'textarea'))).toBe(true);
    expect(has((p) => p.type === 'number' && p.minimum !== undefined && p.maximum !== undefined)).toBe(true);
    expect(has((p) => p.type === 'integer')).toBe(true);
    expect(has((p) => p.type === 'boolean')).toBe(true);
    expect(has((p) => p.type === 'string' && Array.isArray(p.enum))).toBe(true);
    expect(has((p) => Array.isArray(p.enum) && p.enum.length > 100)).toBe(true);
    expect(has((p) => p.type === 'array' && Array.isArray(p.items?.enum))).toBe(true);
    expect(has((p) => p.type === 'array' && p.items?.type === 'string' && !p.items.enum)).toBe(true);
    expect(has((p) => p.type === 'object')).toBe(true);
    expect(has((p) => p.type === 'string' && p.format === 'password')).toBe(true);
    expect(has((p) => p.type === 'secret')).toBe(true);
    for (const format of ['date', 'date-time', 'email', 'uri']) expect(has((p) => p.format === format)).toBe(true);
    expect(has((p) => p.default !== undefined && p.title && p.description)).toBe(true);
    for (const r of catalog) {
      if (!r.workflow.inputSchema) continue;
      const schema = JSON.parse(r.workflow.inputSchema);
      expect(schema).toMatchObject({ type: 'object', title: expect.any(String) });
      expect(Array.isArray(schema.required)).toBe(true);
    }
  });

  it('generates unique extra runbooks cheaply', () => {
    const big = buildCatalog(START_MS, 10_000);
    expect(big.length).toBe(catalog.length + 10_000);
    expect(new Set(big.map((r) => r.workflow.name)).size).toBe(big.length);
    expect(new Set(big.map((r) => r.workflow.id)).size).toBe(big.length);
    expect(big.slice(catalog.length).every((r) => r.isService && /^[0-9a-f]{64}$/.test(r.workflow.id))).toBe(true);
  });
});
