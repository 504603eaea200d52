import { describe, expect, it } from 'vitest';
import { metricsRegistry, ServiceException } from '@app/common';
import { AdmissionGate, type AdmissionLimits, type Permit } from './admission-gate';

type Step =
  | { acquire: string; holder?: string; units: number }
  | { release: string }
  | { grow: string; total: number; busy?: boolean };

interface Case {
  name: string;
  limits: Partial<AdmissionLimits>;
  steps: Step[];
  /** Requests admitted, in the order they were, once every step has run. */
  admitted: string[];
  /** Requests refused with 503 EDIT_BUSY. */
  refused?: string[];
}

const DEFAULTS: AdmissionLimits = { capacity: 100, slots: Infinity, holderCapacity: 100, queueLimit: 10 };

const CASES: Case[] = [
  {
    name: 'requests run together while their units fit',
    limits: {},
    steps: [
      { acquire: 'a', units: 60 },
      { acquire: 'b', units: 40 },
      { acquire: 'c', units: 10 },
    ],
    admitted: ['a', 'b'],
  },
  {
    name: 'a waiting request starts when units are given back',
    limits: {},
    steps: [{ acquire: 'a', units: 60 }, { acquire: 'b', units: 60 }, { release: 'a' }],
    admitted: ['a', 'b'],
  },
  {
    name: 'a request larger than the whole budget runs alone rather than never',
    limits: {},
    steps: [
      { acquire: 'a', units: 150 },
      { acquire: 'b', units: 1 },
    ],
    admitted: ['a'],
  },
  {
    name: 'a request larger than the budget waits until nothing is held',
    limits: {},
    steps: [{ acquire: 'a', units: 10 }, { acquire: 'b', units: 150 }, { acquire: 'c', units: 10 }, { release: 'a' }],
    admitted: ['a', 'b'],
  },
  {
    name: 'smaller requests do not overtake a large one that the budget holds back',
    limits: {},
    steps: [{ acquire: 'a', units: 60 }, { acquire: 'b', units: 60 }, { acquire: 'c', units: 10 }, { release: 'a' }],
    admitted: ['a', 'b', 'c'],
  },
  {
    name: 'one holder gets at most its share; other holders pass its waiting requests',
    limits: { holderCapacity: 50 },
    steps: [
      { acquire: 'k1-a', holder: 'k1', units: 40 },
      { acquire: 'k1-b', holder: 'k1', units: 20 },
      { acquire: 'k2-a', holder: 'k2', units: 30 },
    ],
    admitted: ['k1-a', 'k2-a'],
  },
  {
    name: "a request larger than the holder's share runs when the holder holds nothing",
    limits: { holderCapacity: 50 },
    steps: [
      { acquire: 'k1-a', holder: 'k1', units: 80 },
      { acquire: 'k1-b', holder: 'k1', units: 1 },
      { acquire: 'k2-a', holder: 'k2', units: 20 },
      { release: 'k1-a' },
    ],
    admitted: ['k1-a', 'k2-a', 'k1-b'],
  },
  {
    name: 'slots bound how many run, whatever their units',
    limits: { slots: 2 },
    steps: [{ acquire: 'a', units: 0 }, { acquire: 'b', units: 0 }, { acquire: 'c', units: 0 }, { release: 'b' }],
    admitted: ['a', 'b', 'c'],
  },
  {
    name: 'past the queue limit a new request is refused at once',
    limits: { queueLimit: 1 },
    steps: [{ acquire: 'a', units: 100 }, { acquire: 'b', units: 1 }, { acquire: 'c', units: 1 }, { release: 'a' }],
    admitted: ['a', 'b'],
    refused: ['c'],
  },
  {
    name: 'with no queue, what fits runs and what does not is refused',
    limits: { queueLimit: 0 },
    steps: [
      { acquire: 'a', units: 50 },
      { acquire: 'b', units: 60 },
      { acquire: 'c', units: 50 },
    ],
    admitted: ['a', 'c'],
    refused: ['b'],
  },
  {
    name: 'a permit grows while the budget allows, and is refused beyond it without waiting',
    limits: {},
    steps: [
      { acquire: 'a', units: 0 },
      { grow: 'a', total: 50 },
      { acquire: 'b', units: 40 },
      { grow: 'a', total: 70, busy: true },
      { acquire: 'c', units: 10 },
    ],
    admitted: ['a', 'b', 'c'],
  },
  {
    name: "growing counts against the holder's share",
    limits: { holderCapacity: 50 },
    steps: [
      { acquire: 'k1-a', holder: 'k1', units: 30 },
      { acquire: 'k1-b', holder: 'k1', units: 10 },
      { grow: 'k1-a', total: 45, busy: true },
      { grow: 'k1-a', total: 40 },
    ],
    admitted: ['k1-a', 'k1-b'],
  },
  {
    name: 'a permit alone may grow past the budget',
    limits: {},
    steps: [
      { acquire: 'a', units: 10 },
      { grow: 'a', total: 500 },
      { acquire: 'b', units: 1 },
    ],
    admitted: ['a'],
  },
];

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('AdmissionGate', () => {
  it.each(CASES)('$name', async ({ limits, steps, admitted, refused = [] }) => {
    const gate = new AdmissionGate({ ...DEFAULTS, ...limits });
    const permits = new Map<string, Permit>();
    const order: string[] = [];
    const busy: string[] = [];
    for (const step of steps) {
      if ('acquire' in step) {
        gate.acquire(step.holder ?? 'key', step.units).then(
          (permit) => {
            permits.set(step.acquire, permit);
            order.push(step.acquire);
          },
          (error: ServiceException) => {
            expect(error.codeName).toBe('EDIT_BUSY');
            expect(error.status).toBe(503);
            expect(error.headers).toMatchObject({ 'Retry-After': '1' });
            busy.push(step.acquire);
          },
        );
      } else if ('release' in step) {
        permits.get(step.release)!.release();
      } else {
        const grow = () => permits.get(step.grow)!.grow(step.total);
        if (step.busy) expect(grow).toThrow(expect.objectContaining({ codeName: 'EDIT_BUSY' }));
        else grow();
      }
      await flush();
    }
    expect(order).toEqual(admitted);
    expect(busy).toEqual(refused);
  });

  it('releasing twice gives the units back once', async () => {
    const gate = new AdmissionGate({ ...DEFAULTS });
    const a = await gate.acquire('key', 60);
    const b = await gate.acquire('key', 40);
    a.release();
    a.release();
    expect(gate.state).toEqual({ held: 40, permits: 1, waiting: 0 });
    b.release();
    expect(gate.state).toEqual({ held: 0, permits: 0, waiting: 0 });
  });

  it('lets a waiting request leave when its signal aborts (its client has gone): its place goes to the next', async () => {
    const gate = new AdmissionGate({ ...DEFAULTS, slots: 1, queueLimit: 1 });
    const running = await gate.acquire('a', 10);
    const client = new AbortController();
    const gone = gate.acquire('b', 10, client.signal);
    const reason = new Error('client gone');
    client.abort(reason);
    await expect(gone).rejects.toBe(reason);
    expect(gate.state).toEqual({ held: 10, permits: 1, waiting: 0 });
    // the queue has room again (queueLimit 1), and the slot goes to the next in line, not to the one that left
    const next = gate.acquire('c', 10);
    running.release();
    (await next).release();
    expect(gate.state).toEqual({ held: 0, permits: 0, waiting: 0 });
    await expect(gate.acquire('d', 10, client.signal)).rejects.toBe(reason);
  });

  it('is full only when a new request would have to wait and the queue has no room', async () => {
    const gate = new AdmissionGate({ ...DEFAULTS, slots: 1, queueLimit: 1 });
    expect(gate.full).toBe(false);
    const a = await gate.acquire('key', 10);
    expect(gate.full).toBe(false);
    const waiting = gate.acquire('key', 10);
    expect(gate.full).toBe(true);
    a.release();
    (await waiting).release();
    expect(gate.full).toBe(false);
  });
});

describe('AdmissionGate metrics', () => {
  const value = async (name: string, gate: string) =>
    (await metricsRegistry.getSingleMetric(name)?.get())?.values.find((v) => v.labels.gate === gate)?.value ?? 0;

  it('shows permits in flight and requests in line, and counts refusals, under its name', async () => {
    const gate = new AdmissionGate({ ...DEFAULTS, slots: 1, queueLimit: 1, name: 'scene' });
    const refusedBefore = await value('atelier_gate_refusals_total', 'scene');
    const first = await gate.acquire('a', 10);
    const second = gate.acquire('b', 10);
    expect(await value('atelier_gate_in_flight', 'scene')).toBe(1);
    expect(await value('atelier_gate_queued', 'scene')).toBe(1);
    await expect(gate.acquire('c', 10)).rejects.toBeInstanceOf(ServiceException);
    expect((await value('atelier_gate_refusals_total', 'scene')) - refusedBefore).toBe(1);
    first.release();
    (await second).release();
    expect(await value('atelier_gate_in_flight', 'scene')).toBe(0);
    expect(await value('atelier_gate_queued', 'scene')).toBe(0);
  });
});
