export * from './edit-plan';
export * from './image-pipeline';
export * from './image-pipeline.module';
export {
  assumes8Bit,
  PIPELINE_PHASES,
  type EditAssets,
  type PipelinePhase,
  type StepContext,
} from './operations/pipeline-step';
export { registerStep, registeredSteps, type RegisteredStep } from './operations/registered-steps';
export { pipelineSteps } from './pipeline-steps';
export { adjust } from './operations/adjust.operation';
export { styleTransfer } from './operations/generative.operation';
export { pad } from './operations/padding.operation';
export { cropBelowFaces } from './operations/identity-crop.operation';
export { blurPlates } from './operations/plate-blur.operation';
export { decompressAsAsked } from './operations/restore.operation';
export { polish } from './operations/upscale.operation';
export { removeBackground } from './operations/background-removal.operation';
export { blurBackground } from './operations/background-blur.operation';
export { matteSize } from './operations/subject-matte';
export { ready, materialize, type StageImage } from './operations/stage';
export * from './decode/probe';
export * from './colour/cmyk-profiles';
export * from './workers/pixel-pool';
export * from './workers/raw-pixels';
export * from './memory-estimate';
export * from './ports/segmenter.port';
export * from './ports/face-detector.port';
export * from './ports/text-detector.port';
export * from './ports/super-resolver.port';
export * from './ports/generative.port';
export * from './scene/scene-plan';
export { estimateSceneMemory, type SceneOutcome, type SceneSource } from './scene/scene-composer';
