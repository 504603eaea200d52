export * from './generator-client';
export * from './comfyui.backend';
export * from './automatic1111.backend';
export * from './openai.backend';
export { HttpGenerativeBackend, type GeneratorJob } from './http-backend';
