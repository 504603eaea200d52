export * from './vision.module';
export * from './vision-capabilities';
