export * from './local/prompt-vocabulary';
