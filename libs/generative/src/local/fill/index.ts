export { outpaintFill, type OutpaintInput } from './outpaint-fill';
export { mirrorBlurFill } from './mirror-blur-fill';
export { seamVisibility, textureEnergyRatio } from './fill-metrics';
