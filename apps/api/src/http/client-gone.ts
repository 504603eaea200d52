import type { FastifyReply } from 'fastify';
import { ServiceException } from '@app/common';

/**
 * A signal aborted when the client goes away before its answer is sent (its connection closed): the work done for
 * it (an outpaint or a style transfer waiting on a generator) stops and gives back its slot. The response's
 * `close` is the one event that says so whatever was read of the body: it comes when the answer has been written
 * (then nothing is aborted) or when the connection closed before.
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  const onClose = () => {
    if (!response.writableFinished) {
      controller.abort(
        new ServiceException('BAD_REQUEST', 'The client closed the connection before the answer was ready.'),
      );
    }
  };
  if (response.destroyed) onClose();
  else response.once('close', onClose);
  return controller.signal;
}
