export * from './edit-plan';
export * from './image-pipeline';
export * from './image-pipeline.module';
export { PIPELINE_PHASES, type PipelinePhase } from './operations/pipeline-step';
export * from './decode/probe';
export * from './colour/cmyk-profiles';
export * from './workers/pixel-pool';
export * from './workers/raw-pixels';
export * from './memory-estimate';
