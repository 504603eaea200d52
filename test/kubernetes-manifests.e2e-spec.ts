import { connect } from 'node:net';
import { readdirSync } from 'node:fs';
import { posix, resolve } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig, metricsRegistry, startMetricsServer, type Environment } from '@app/common';
import {
  configVariables,
  documentedVariables,
  readRepoFile,
  REPO_ROOT,
  RUNTIME_VARIABLES,
  startScript,
} from './helpers/deployment-files';
import { freePort, type RunningProcess } from './helpers/process';
import { startWorkerFor } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

/**
 * deploy/kubernetes cannot be applied here (no cluster), so each document is validated against the Kubernetes
 * API's schema (kubernetes-models), and what a user would otherwise find out in production is checked against
 * the code: the probes' paths and ports answer, the environment is one the typed configuration accepts, the
 * autoscaler aims at the worker and at a metric the service exports.
 */
const FOLDER = 'deploy/kubernetes';

interface Document {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [member: string]: any;
}

const manifestFiles = readdirSync(resolve(REPO_ROOT, FOLDER)).filter(
  (file) => file.endsWith('.yaml') && file !== 'kustomization.yaml',
);
const documents: Document[] = manifestFiles.flatMap((file) =>
  parseAllDocuments(readRepoFile(`${FOLDER}/${file}`)).map((document) => document.toJS() as Document),
);

/** The schema of each kind this folder may hold. */
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

function find(kind: string, name: string): Document {
  const found = documents.find((document) => document.kind === kind && document.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in ${FOLDER}`);
  return found;
}

const api = find('Deployment', 'atelier-api') as IDeployment & Document;
const worker = find('Deployment', 'atelier-worker') as IDeployment & Document;
const container = (deployment: IDeployment): IContainer => deployment.spec!.template.spec!.containers[0];
const configMap = find('ConfigMap', 'atelier-config').data as Record<string, string>;

/** A sample for each secret a container takes from the Secret, valid for the typed configuration. */
const SECRET_SAMPLES: Record<string, string> = {
  DATABASE_URL: 'postgres://atelier:password@postgres:5432/atelier',
  REDIS_URL: 'redis://redis:6379',
  STORAGE_ENCRYPTION_KEY: 'ab'.repeat(32),
  ADMIN_API_KEY: 'ab'.repeat(32),
  METRICS_TOKEN: 'ef'.repeat(32),
  TEMP_BUCKET_ACCESS_KEY: 'atelier-temporary',
  TEMP_BUCKET_SECRET_KEY: 'cd'.repeat(24),
};

/** The environment a container gets: its ConfigMaps' data, then its own entries (secrets as samples). */
function containerEnvironment(deployment: IDeployment): Environment {
  const env: Environment = {};
  for (const source of container(deployment).envFrom ?? []) {
    Object.assign(env, find('ConfigMap', source.configMapRef!.name!).data);
  }
  for (const entry of container(deployment).env ?? []) {
    env[entry.name] = entry.valueFrom?.secretKeyRef ? SECRET_SAMPLES[entry.name] : entry.value;
  }
  return env;
}

function containerPort(deployment: IDeployment, name: string): number {
  const port = container(deployment).ports?.find((candidate) => candidate.name === name);
  if (!port) throw new Error(`${deployment.metadata?.name} has no port named ${name}`);
  return port.containerPort;
}

describe('deploy/kubernetes: the documents', () => {
  it('are each a valid object of their Kubernetes API (kubernetes-models schemas)', () => {
    expect(documents.map((document) => `${document.kind}/${document.metadata.name}`).sort()).toEqual([
      'ConfigMap/atelier-config',
      'Deployment/atelier-api',
      'Deployment/atelier-worker',
      'HorizontalPodAutoscaler/atelier-worker',
      'NetworkPolicy/atelier-api',
      'NetworkPolicy/atelier-worker',
      'PodDisruptionBudget/atelier-api',
      'PodDisruptionBudget/atelier-worker',
      'Service/atelier-api',
    ]);
    for (const document of documents) {
      const Model = MODELS[`${document.apiVersion}/${document.kind}`];
      expect(Model, `${document.apiVersion} ${document.kind}`).toBeDefined();
      expect(() => new Model(document).validate(), document.metadata.name).not.toThrow();
    }
    // The schemas do bite: a port given as text is refused.
    const broken = structuredClone(api);
    container(broken).ports![0].containerPort = '3000' as unknown as number;
    expect(() => new Deployment(broken).validate()).toThrow(/containerPort must be integer/);
  });

  it('are all listed in kustomization.yaml, and carry no namespace (the user chooses it)', () => {
    const kustomization = parse(readRepoFile(`${FOLDER}/kustomization.yaml`)) as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual([...manifestFiles].sort());
    for (const document of documents) expect(document.metadata, document.metadata.name).not.toHaveProperty('namespace');
  });

  it('commit no secret: every secret is a reference into the Secret atelier-secrets, which is not defined here', () => {
    expect(documents.some((document) => document.kind === 'Secret')).toBe(false);
    for (const deployment of [api, worker]) {
      const refs = (container(deployment).env ?? []).filter((entry) => entry.valueFrom?.secretKeyRef);
      expect(refs.length).toBeGreaterThan(0);
      for (const entry of container(deployment).env ?? []) {
        expect(entry.value, entry.name).toBeUndefined();
        expect(entry.valueFrom?.secretKeyRef?.name, entry.name).toBe('atelier-secrets');
        expect(entry.valueFrom?.secretKeyRef?.key, entry.name).toBe(entry.name);
      }
    }
    for (const name of Object.keys(SECRET_SAMPLES)) expect(configMap, name).not.toHaveProperty(name);
  });
});

describe('deploy/kubernetes: agreement with the code', () => {
  it('gives the api and the worker an environment the typed configuration accepts, on the ports they declare', () => {
    const apiConfig = loadConfig(containerEnvironment(api));
    expect(apiConfig.port).toBe(containerPort(api, 'http'));
    expect(apiConfig.metricsPort).toBe(containerPort(api, 'metrics'));
    expect(apiConfig.host).toBe('0.0.0.0');
    expect(apiConfig.trustProxy).toBe(true);
    expect(apiConfig.publicBaseUrl).toMatch(/^https:\/\//);
    const workerConfig = loadConfig(containerEnvironment(worker));
    expect(workerConfig.metricsPort).toBe(containerPort(worker, 'metrics'));
    expect(workerConfig.redisUrl).toBeDefined();
    expect(workerConfig.databaseUrl).toBeDefined();
  });

  it('sets only variables documented in docs/configuration.md and read by the typed configuration', () => {
    const documented = documentedVariables();
    const read = configVariables();
    for (const deployment of [api, worker]) {
      for (const name of Object.keys(containerEnvironment(deployment))) {
        expect(documented.has(name), `${name} in docs/configuration.md`).toBe(true);
        expect(read.has(name) || RUNTIME_VARIABLES.has(name), `${name} read`).toBe(true);
      }
    }
  });

  it('starts each process as package.json does, from the image docker-compose builds, at the project version', () => {
    const version = (JSON.parse(readRepoFile('package.json')) as { version: string }).version;
    const composeImage = (parse(readRepoFile('docker-compose.yml')) as { services: { api: { image: string } } })
      .services.api.image;
    for (const [name, deployment] of [
      ['api', api],
      ['worker', worker],
    ] as const) {
      const script = startScript(name);
      expect(container(deployment).command, name).toEqual(['node', ...script.nodeOptions, script.entry]);
      for (const [variable, value] of Object.entries(script.env)) expect(configMap[variable]).toBe(value);
      expect(container(deployment).image).toBe(`${composeImage.split(':')[0]}:${version}`);
    }
  });

  it('routes the Service and each disruption budget to the pods they mean', () => {
    const labels = (deployment: IDeployment) => deployment.spec!.template.metadata!.labels!;
    const selects = (selector: Record<string, string>, deployment: IDeployment) =>
      Object.entries(selector).every(([key, value]) => labels(deployment)[key] === value);
    const service = find('Service', 'atelier-api');
    expect(selects(service.spec.selector, api)).toBe(true);
    expect(selects(service.spec.selector, worker)).toBe(false);
    for (const port of service.spec.ports as { targetPort: string }[]) {
      expect(() => containerPort(api, port.targetPort)).not.toThrow();
    }
    for (const [name, deployment, other] of [
      ['atelier-api', api, worker],
      ['atelier-worker', worker, api],
    ] as const) {
      const selector = find('PodDisruptionBudget', name).spec.selector.matchLabels as Record<string, string>;
      expect(selects(selector, deployment), name).toBe(true);
      expect(selects(selector, other), name).toBe(false);
      expect(selects(deployment.spec!.selector.matchLabels!, deployment), name).toBe(true);
    }
  });

  it('autoscales the worker Deployment on the waiting jobs of the queue, with the adapter rule documented', async () => {
    const autoscaler = find('HorizontalPodAutoscaler', 'atelier-worker');
    expect(autoscaler.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'atelier-worker',
    });
    const [metric] = autoscaler.spec.metrics as { type: string; external: { metric: any; target: any } }[];
    expect(metric.type).toBe('External');
    expect(metric.external.metric).toEqual({
      name: 'atelier_queue_jobs',
      selector: { matchLabels: { state: 'waiting' } },
    });
    expect(metric.external.target.type).toBe('AverageValue');
    const exported = (await metricsRegistry.getMetricsAsJSON()).find((m) => m.name === metric.external.metric.name);
    expect(exported?.type).toBe('gauge');
    // The rule prometheus-adapter needs to serve it, in docs/operations.md.
    expect(readRepoFile('docs/operations.md')).toMatch(/externalRules:[\s\S]*atelier_queue_jobs/);
  });
});

describe('deploy/kubernetes: hardening', () => {
  /** The image's working folder (the Dockerfile's last WORKDIR), against which DATA_DIR resolves. */
  const workdir = [...readRepoFile('Dockerfile').matchAll(/^WORKDIR\s+(\S+)/gm)].pop()![1];

  it('mounts no service account token, and runs on a read-only root with emptyDir for every folder written', () => {
    for (const deployment of [api, worker]) {
      const name = deployment.metadata!.name!;
      const pod = deployment.spec!.template.spec!;
      expect(pod.automountServiceAccountToken, name).toBe(false);
      expect(container(deployment).securityContext?.readOnlyRootFilesystem, name).toBe(true);
      const env = containerEnvironment(deployment);
      // What a process writes: DATA_DIR (the first admin key, a key file) and the system temporary folder.
      const written = [posix.resolve(workdir, env.DATA_DIR ?? './data'), env.TMPDIR ?? '/tmp'];
      const mounts = container(deployment).volumeMounts ?? [];
      for (const folder of written) {
        const mount = mounts.find((candidate) => candidate.mountPath === folder);
        expect(mount, `${name}: ${folder} mounted`).toBeDefined();
        expect(mount!.readOnly, `${name}: ${folder} writable`).not.toBe(true);
        const volume = pod.volumes?.find((candidate) => candidate.name === mount!.name);
        expect(volume?.emptyDir, `${name}: ${folder} is an emptyDir`).toBeDefined();
      }
    }
  });

  it('admits only the Ingress to port 3000 (TRUST_PROXY trusts what it forwards) and only the scraper to the metrics ports', () => {
    expect(loadConfig(containerEnvironment(api)).trustProxy).toBe(true);
    const labels = (deployment: IDeployment) => deployment.spec!.template.metadata!.labels!;
    const selects = (selector: Record<string, string>, deployment: IDeployment) =>
      Object.entries(selector).every(([key, value]) => labels(deployment)[key] === value);
    type Rule = { from?: { namespaceSelector?: any; podSelector?: any; ipBlock?: any }[]; ports?: { port: string }[] };
    const admitted = (deployment: IDeployment) => {
      const policies = documents.filter(
        (document) => document.kind === 'NetworkPolicy' && selects(document.spec.podSelector.matchLabels, deployment),
      );
      expect(policies.length, deployment.metadata!.name).toBe(1);
      const [policy] = policies;
      expect(policy.spec.policyTypes).toEqual(['Ingress']);
      // port name -> who may connect; every rule names both its peers and its ports (no rule opens everything)
      const byPort: Record<string, unknown[]> = {};
      for (const rule of policy.spec.ingress as Rule[]) {
        expect(rule.from?.length, 'a rule without `from` admits every pod').toBeGreaterThan(0);
        expect(rule.ports?.length, 'a rule without `ports` admits every port').toBeGreaterThan(0);
        for (const peer of rule.from!) {
          expect(peer.ipBlock, 'no address blocks').toBeUndefined();
          // both selectors: pods of one namespace, not every pod of it or of the cluster
          expect(Object.keys(peer.namespaceSelector?.matchLabels ?? {}).length).toBeGreaterThan(0);
          expect(Object.keys(peer.podSelector?.matchLabels ?? {}).length).toBeGreaterThan(0);
        }
        for (const { port } of rule.ports!) {
          expect(() => containerPort(deployment, port)).not.toThrow();
          (byPort[port] ??= []).push(...rule.from!);
        }
      }
      return byPort;
    };
    const ingress = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
    };
    const scraper = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
    };
    expect(admitted(api)).toEqual({ http: [ingress], metrics: [scraper] });
    expect(admitted(worker)).toEqual({ metrics: [scraper] });
  });

  it('gives the metrics token to both processes, so that their metrics ports ask for it', () => {
    for (const deployment of [api, worker]) {
      expect(loadConfig(containerEnvironment(deployment)).metricsToken, deployment.metadata!.name).toBe(
        SECRET_SAMPLES.METRICS_TOKEN,
      );
    }
  });
});

describe('deploy/kubernetes: the probes reach what the processes serve', () => {
  let app: TestApp;
  let workerProcess: RunningProcess | undefined;
  let workerMetrics: { port: number; close(): Promise<void> };

  beforeAll(async () => {
    app = await startTestApp();
    const port = await freePort();
    // Scaled mode: the worker app itself. Embedded mode has no worker; its metrics listener is the same code.
    workerProcess = await startWorkerFor(app, {
      METRICS_PORT: String(port),
      METRICS_TOKEN: SECRET_SAMPLES.METRICS_TOKEN,
    });
    if (workerProcess) {
      workerMetrics = { port, close: async () => undefined };
    } else {
      const server = await startMetricsServer('127.0.0.1', port, SECRET_SAMPLES.METRICS_TOKEN);
      workerMetrics = { port, close: () => new Promise<void>((done) => server.close(() => done())) };
    }
  });
  afterAll(async () => {
    await workerProcess?.stop();
    await workerMetrics?.close();
    await app?.close();
  });

  it('answers the api probes with 200 on the paths and the port they name', async () => {
    const probes = container(api);
    const paths = [probes.startupProbe, probes.livenessProbe, probes.readinessProbe].map((probe) => {
      expect(probe?.httpGet?.port).toBe('http');
      return probe!.httpGet!.path!;
    });
    expect(paths).toEqual(['/health/live', '/health/live', '/health/ready']);
    for (const path of paths) expect((await fetch(`${app.url}${path}`)).status, path).toBe(200);
  });

  it('answers the worker probes on its metrics port without the token: a connection, and its readiness', async () => {
    const probes = container(worker);
    for (const probe of [probes.startupProbe, probes.livenessProbe]) expect(probe?.tcpSocket?.port).toBe('metrics');
    await new Promise<void>((done, fail) => {
      const socket = connect(workerMetrics.port, '127.0.0.1', () => {
        socket.end();
        done();
      });
      socket.once('error', fail);
    });
    const readiness = probes.readinessProbe!.httpGet!;
    expect(readiness.port).toBe('metrics');
    const answer = await fetch(`http://127.0.0.1:${workerMetrics.port}${readiness.path}`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('ready\n');
    // the exposition itself (the queue's depth) is for the scraper's token only
    const metrics = `http://127.0.0.1:${workerMetrics.port}/metrics`;
    expect((await fetch(metrics)).status).toBe(401);
    const scraped = await fetch(metrics, { headers: { authorization: `Bearer ${SECRET_SAMPLES.METRICS_TOKEN}` } });
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(text).toContain('# TYPE atelier_queue_jobs gauge');
    if (workerProcess) expect(text).toMatch(/^atelier_queue_jobs\{state="waiting"\} \d+$/m);
  });
});
