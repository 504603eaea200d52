/** The BullMQ queue that carries editing work (batch and asynchronous edits) from the API to workers. */
export const EDIT_QUEUE = 'image-edit';

/**
 * Job names on {@link EDIT_QUEUE}. Each name has exactly one handler in the worker's processor;
 * payloads carry ids and references, never image bytes. Filled by the batch issue.
 */
export const EditJobNames = {} as const;

export type EditJobName = (typeof EditJobNames)[keyof typeof EditJobNames];
