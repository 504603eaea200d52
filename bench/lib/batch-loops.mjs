// The batch suite's references: plain sharp loops over the photos, on disk or on the S3-compatible store.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { editImage, fitBounds, ThreadShare } from './sharp-work.mjs';

/** Runs `work(item)` over `items`, `concurrency` at a time. */
export async function pool(items, concurrency, work) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}

/**
 * The reference: the same edit (lib/sharp-work.mjs, the service's sharp pipeline mirrored) over the files on
 * disk, read, edited and written back to disk, `inFlight` at a time (1: the plain loop).
 */
export async function plainLoop(folder, names, outFolder, inFlight) {
  mkdirSync(outFolder, { recursive: true });
  const share = inFlight > 1 ? new ThreadShare() : undefined;
  const began = performance.now();
  await pool(names, inFlight, async (name) => {
    const bytes = readFileSync(join(folder, name));
    const { width, height } = await sharp(bytes).metadata();
    const output = await editImage(bytes, 'jpeg', fitBounds(width, height), share);
    writeFileSync(join(outFolder, name), output);
  });
  return (performance.now() - began) / 1000;
}

/**
 * The fair reference of issue 17: the same edit, `inFlight` at a time, reading each photo from s3rver and writing
 * its result back with the AWS SDK (one client, kept-alive connections), as a worker does; the photos are
 * `in/part-0/<name>`, the results `out/<run>/<name>`.
 */
export async function s3Loop(s3, bucket, names, run, inFlight) {
  const share = inFlight > 1 ? new ThreadShare() : undefined;
  const began = performance.now();
  await pool(names, inFlight, async (name) => {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: `in/part-0/${name}` }));
    const bytes = Buffer.from(await object.Body.transformToByteArray());
    const { width, height } = await sharp(bytes, { limitInputPixels: false }).metadata();
    const output = await editImage(bytes, 'jpeg', fitBounds(width, height), share);
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: `out/${run}/${name}`, Body: output, ContentType: 'image/jpeg' }),
    );
  });
  return (performance.now() - began) / 1000;
}
