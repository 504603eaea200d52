import { Piscina } from 'piscina';
import { outpaintFill, type OutpaintInput } from './fill';
import { renderScene, type SceneRenderInput, type SceneRenderOutput } from './scene';
import { styleTransfer, type StyleInput } from './style';

/** One job of the local backend, run on a worker thread (local.backend.ts). */
export type LocalTask =
  | { kind: 'scene'; input: SceneRenderInput }
  | { kind: 'outpaint'; input: OutpaintInput }
  | { kind: 'style'; input: StyleInput };

export type LocalTaskResult = SceneRenderOutput | { data: Uint8Array };

function run(task: LocalTask): LocalTaskResult {
  switch (task.kind) {
    case 'scene':
      return renderScene(task.input);
    case 'outpaint':
      return { data: outpaintFill(task.input) };
    case 'style':
      return { data: styleTransfer(task.input) };
  }
}

/** The worker's entry: the result's pixels travel back without a copy. */
export default function runLocalTask(task: LocalTask): unknown {
  const result = run(task);
  const movable = { [Piscina.transferableSymbol]: [result.data.buffer], [Piscina.valueSymbol]: result };
  return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]);
}
