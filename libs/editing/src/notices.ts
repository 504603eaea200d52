/**
 * What a request tells its client beside the result: something it asked for that the image does not show. The
 * codes are stable, for programs; the message is for people.
 */
export interface EditNotice {
  /**
   * `NO_FACE_FOUND`: an edit's identity_crop found no face and left the image uncut. `PROMPT_NOT_DRAWN`: a scene's
   * backend drew the prompt without some of its words (the local backend draws colours, surfaces, finishes and
   * light only).
   */
  code: 'NO_FACE_FOUND' | 'PROMPT_NOT_DRAWN';
  /** The request field the notice is about. */
  field: string;
  message: string;
}

export const NO_FACE_FOUND: EditNotice = {
  code: 'NO_FACE_FOUND',
  field: 'operations.privacy.identity_crop',
  message: 'No face was found in the image: identity_crop left it uncut.',
};

/** The words of `field` that the scene's backend reported as not drawn (its `details.ignored`, space-separated). */
export function promptNotDrawn(field: string, ignored: string): EditNotice {
  const words = ignored.split(' ').filter((word) => word.length > 0);
  return {
    code: 'PROMPT_NOT_DRAWN',
    field,
    message:
      `The scene was drawn without ${words.length === 1 ? 'the word' : 'these words'} of the prompt: ${words.join(', ')}. ` +
      'The local backend draws colours, surfaces, finishes and light only (docs/scenes.md); a generator ' +
      '(GENERATIVE_BACKEND) draws the rest.',
  };
}
