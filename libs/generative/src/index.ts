export * from './generative.module';
export * from './backend.factory';
export * from './local/local.backend';
export * from './local/prompt-vocabulary';
export { mirrorBlurFill, seamVisibility } from './local/fill';
