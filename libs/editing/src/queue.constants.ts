/** The BullMQ queue that carries task work (batch and asynchronous edits) from the API to workers. */
export const EDIT_QUEUE = 'image-edit';
