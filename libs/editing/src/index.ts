export * from './queue.constants';
