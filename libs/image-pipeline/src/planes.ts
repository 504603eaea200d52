/**
 * The pipeline's public plane arithmetic (`@app/image-pipeline/planes`), for the libraries whose worker threads
 * need it without loading the pipeline (sharp, Nest): float planes, box and Gaussian means, 8-connected flood
 * fill. Pure functions of their arguments; the kernels' own files stay private to this library.
 */
export type { Plane } from './kernels/guided-filter';
export { boxMean } from './kernels/guided-filter';
export { gaussianMean } from './kernels/background-blur.kernel';
export { flood8 } from './kernels/flood';
