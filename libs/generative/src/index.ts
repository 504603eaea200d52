export * from './generative.module';
export * from './backend.factory';
export * from './local/local.backend';
export * from './local/prompt-vocabulary';
