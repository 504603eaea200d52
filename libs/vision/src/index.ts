export * from './vision.module';
export * from './vision-capabilities';
export * from './model-runner';
export * from './model-file';
export * from './onnx-session';
export * from './segmentation/segmentation.model';
export * from './segmentation/segmentation-profiles';
export * from './text/text-detection.model';
