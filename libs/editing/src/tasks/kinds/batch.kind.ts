import { parseBatchRequest } from '../task-request';
import type { TaskKind } from './task-kind';

/** `POST /v1/image/edit/batch`: a storage folder or a list of images, every one edited the same way. */
export const batchTaskKind: TaskKind = {
  name: 'batch',
  description: 'A storage folder or a list of images, each edited the same way.',
  path: (id) => `/v1/image/edit/batch/${id}`,
  parse: parseBatchRequest,
  // Each result takes its input's place below the output folder (a recursive listing keeps its subfolders).
  itemDestination: (destination, subPath) => (destination ? `${destination}${subPath}` : undefined),
  singleResult: false,
};
