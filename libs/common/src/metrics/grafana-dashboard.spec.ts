import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metricsRegistry } from './metrics';

/** The Grafana dashboard of docs/grafana: every query names metrics this service exports. */
const DASHBOARD = join(__dirname, '..', '..', '..', '..', 'docs', 'grafana', 'atelier-dashboard.json');

interface Panel {
  title: string;
  targets: { expr: string }[];
}

describe('docs/grafana/atelier-dashboard.json', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };

  it('queries only metrics the registry defines (histogram series by their base name)', async () => {
    const known = new Set((await metricsRegistry.getMetricsAsJSON()).map((metric) => metric.name));
    const named = dashboard.panels.flatMap((panel) =>
      panel.targets.flatMap((target) => [...target.expr.matchAll(/\batelier_[a-z0-9_]+/g)].map((m) => m[0])),
    );
    expect(named.length).toBeGreaterThan(10);
    const unknown = named.filter((name) => !known.has(name.replace(/_(bucket|sum|count)$/, '')));
    expect(unknown).toEqual([]);
  });

  it('covers requests, edit stages, gates, refusals, the queue, tasks and memory', () => {
    const queries = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)).join('\n');
    for (const metric of [
      'atelier_http_request_duration_seconds',
      'atelier_edit_stage_seconds',
      'atelier_gate_in_flight',
      'atelier_gate_refusals_total',
      'atelier_rate_limit_refusals_total',
      'atelier_quota_refusals_total',
      'atelier_queue_jobs',
      'atelier_queue_oldest_waiting_seconds',
      'atelier_task_items_total',
      'atelier_process_resident_memory_bytes',
    ]) {
      expect(queries, metric).toContain(metric);
    }
  });
});
