import * as tf from '@tensorflow/tfjs';
import { setThreadsCount } from '@tensorflow/tfjs-backend-wasm';

/**
 * TensorFlow.js on its WebAssembly backend, for the models that ship only as TF.js graphs or layers (faces,
 * super-resolution). Imported only by worker threads (a model's `*.worker.ts`): TF.js runs its kernels on the
 * calling thread. `@tensorflow/tfjs-node` cannot install here; the WASM backend needs no native build, and its
 * SIMD binary is several times faster than the plain-JS CPU backend.
 */
let ready: Promise<typeof tf> | undefined;

/** The TF.js module with the WASM backend set, once per thread; `threads` applies only to the first call. */
export function tfjsOnWasm(threads: number): Promise<typeof tf> {
  ready ??= (async () => {
    setThreadsCount(threads);
    if (!(await tf.setBackend('wasm'))) throw new Error('the TF.js WASM backend could not start');
    await tf.ready();
    tf.enableProdMode();
    return tf;
  })();
  return ready;
}
