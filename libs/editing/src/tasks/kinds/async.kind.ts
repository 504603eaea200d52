import { parseAsyncRequest } from '../task-request';
import type { TaskKind } from './task-kind';

/** `POST /v1/image/edit/async`: one edit, run in the background, its result shown as `result` too. */
export const asyncTaskKind: TaskKind = {
  name: 'async',
  description: 'One image edited in the background.',
  path: (id) => `/v1/image/edit/async/${id}`,
  parse: parseAsyncRequest,
  itemDestination: (destination) => destination,
  singleResult: true,
};
