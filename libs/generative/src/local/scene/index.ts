export { renderScene, type SceneRenderInput, type SceneRenderOutput } from './render-scene';
