import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import type { StorageCapabilities, StorageDriver } from '@app/storage';

/**
 * THE storage driver contract (libs/storage/src/drivers/storage-driver.ts), as one suite every driver runs
 * against its real or protocol-faithful store (test/storage-drivers.e2e-spec.ts): read, not found, list (or its
 * refusal), write (or its refusal), a body cut short, delete, throttling. A new storage type adds a harness there.
 */

/** A driver on an empty root of its store, and the store's own way to put an object there (not the driver's). */
export interface DriverUnderTest {
  driver: StorageDriver;
  put(path: string, bytes: Buffer): Promise<void>;
}

export interface DriverHarness {
  /** The storage type, as the registry names it. */
  type: string;
  capabilities: StorageCapabilities;
  /** Starts the store (once for the suite). */
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  /** A driver on a fresh, empty root (each test its own). */
  fresh(): Promise<DriverUnderTest>;
  /** A driver whose store answers its next request with throttling (429 or 503); absent where it is no server. */
  throttled?(): Promise<StorageDriver>;
}

const bytesOf = async (stream: Readable) => Buffer.concat((await stream.toArray()) as Buffer[]);

async function failure(promise: Promise<unknown>): Promise<ServiceException> {
  const error: unknown = await promise.catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ServiceException);
  return error as ServiceException;
}

async function paths(listing: AsyncIterable<{ path: string }>): Promise<string[]> {
  const found: string[] = [];
  for await (const object of listing) found.push(object.path);
  return found.sort();
}

/** A body that gives `head` and then fails, as an upload whose client went away. */
function cutShort(head: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(head);
      } else this.destroy(new Error('the client went away'));
    },
  });
}

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(3000, 7), Buffer.from([0xff, 0xd9])]);

export function describeDriverContract(harness: DriverHarness): void {
  describe(`the storage driver contract: ${harness.type}`, () => {
    beforeAll(() => harness.setUp(), 60_000);
    afterAll(() => harness.tearDown());

    it('reads the bytes of an object it did not write, with its size, and heads it', async () => {
      const { driver, put } = await harness.fresh();
      await put('shoes/red.jpg', JPEG);
      const read = await driver.read('shoes/red.jpg');
      expect(await bytesOf(read.stream)).toEqual(JPEG);
      if (read.size !== undefined) expect(read.size).toBe(JPEG.length);
      expect(await driver.head('shoes/red.jpg')).toMatchObject({ path: 'shoes/red.jpg', size: JPEG.length });
    });

    it('answers STORAGE_OBJECT_NOT_FOUND for a missing object, and head null', async () => {
      const { driver } = await harness.fresh();
      expect((await failure(driver.read('nowhere/none.jpg'))).codeName).toBe('STORAGE_OBJECT_NOT_FOUND');
      expect(await driver.head('nowhere/none.jpg')).toBeNull();
    });

    if (harness.capabilities.list) {
      it('lists a folder: its own files, or every file below it when recursive; an empty folder is empty', async () => {
        const { driver, put } = await harness.fresh();
        for (const path of ['shoes/a.jpg', 'shoes/b.png', 'shoes/deep/c.jpg', 'other.jpg']) await put(path, JPEG);
        expect(await paths(driver.list('shoes'))).toEqual(['shoes/a.jpg', 'shoes/b.png']);
        expect(await paths(driver.list('shoes/', { recursive: true }))).toEqual([
          'shoes/a.jpg',
          'shoes/b.png',
          'shoes/deep/c.jpg',
        ]);
        expect(await paths(driver.list(''))).toEqual(['other.jpg']);
        expect(await paths(driver.list('nothing-here'))).toEqual([]);
        for await (const object of driver.list('shoes')) expect(object.size).toBe(JPEG.length);
      });
    } else {
      it('refuses to list with STORAGE_OPERATION_UNSUPPORTED', async () => {
        const { driver } = await harness.fresh();
        expect((await failure(paths(driver.list('shoes')))).codeName).toBe('STORAGE_OPERATION_UNSUPPORTED');
      });
    }

    if (harness.capabilities.write) {
      it('writes a buffer and a stream, reads the same bytes back, and overwrites', async () => {
        const { driver } = await harness.fresh();
        const written = await driver.write('out/a.jpg', JPEG, { contentType: 'image/jpeg' });
        expect(written).toMatchObject({ path: 'out/a.jpg', size: JPEG.length });
        expect(await bytesOf((await driver.read('out/a.jpg')).stream)).toEqual(JPEG);
        const chunks = [JPEG.subarray(0, 1000), JPEG.subarray(1000)];
        expect(await driver.write('out/b.jpg', Readable.from(chunks))).toMatchObject({ size: JPEG.length });
        expect(await bytesOf((await driver.read('out/b.jpg')).stream)).toEqual(JPEG);
        await driver.write('out/a.jpg', Buffer.from('newer'));
        expect((await bytesOf((await driver.read('out/a.jpg')).stream)).toString()).toBe('newer');
      });

      it('leaves no object when the body is cut short, and keeps the one that was there', async () => {
        const { driver, put } = await harness.fresh();
        await put('out/kept.jpg', JPEG);
        await expect(driver.write('out/kept.jpg', cutShort(Buffer.alloc(64 * 1024, 1)))).rejects.toThrow();
        expect(await bytesOf((await driver.read('out/kept.jpg')).stream)).toEqual(JPEG);
        await expect(driver.write('out/new.jpg', cutShort(Buffer.alloc(64 * 1024, 2)))).rejects.toThrow();
        expect(await driver.head('out/new.jpg')).toBeNull();
      });

      it('deletes an object; deleting a missing one is no error', async () => {
        const { driver, put } = await harness.fresh();
        await put('gone.jpg', JPEG);
        await driver.delete('gone.jpg');
        expect(await driver.head('gone.jpg')).toBeNull();
        await expect(driver.delete('never.jpg')).resolves.toBeUndefined();
      });
    } else {
      it('refuses to write and to delete with STORAGE_OPERATION_UNSUPPORTED', async () => {
        const { driver } = await harness.fresh();
        expect((await failure(driver.write('out/a.jpg', JPEG))).codeName).toBe('STORAGE_OPERATION_UNSUPPORTED');
        expect((await failure(driver.delete('out/a.jpg'))).codeName).toBe('STORAGE_OPERATION_UNSUPPORTED');
      });
    }

    if (harness.throttled) {
      const throttled = harness.throttled.bind(harness);
      it('reads throttling as STORAGE_BACKEND_FAILED, which may pass when asked again', async () => {
        const driver = await throttled();
        const error = await failure(driver.read('shoes/red.jpg'));
        expect(error).toMatchObject({ codeName: 'STORAGE_BACKEND_FAILED', retryable: true });
      });
    }
  });
}
