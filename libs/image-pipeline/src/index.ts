export * from './edit-plan';
export * from './workers/pixel-pool';
export * from './workers/raw-pixels';
