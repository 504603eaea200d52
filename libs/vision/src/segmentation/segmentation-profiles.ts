import type { SegmentationProfileName } from '@app/common';

/**
 * How one family of salient-object models wants its input and gives its output (as rembg feeds them): the
 * image scaled to `size`, its RGB divided by its brightest channel value, then `(value - mean) / std` per
 * channel, NCHW float32; the map at `outputIndex` is the mask, through a sigmoid where the model ends on logits.
 */
export interface SegmentationProfile {
  name: SegmentationProfileName;
  size: { width: number; height: number };
  mean: readonly [number, number, number];
  std: readonly [number, number, number];
  outputIndex: number;
  sigmoid: boolean;
}

const IMAGENET = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] } as const;

export const SEGMENTATION_PROFILE: Readonly<Record<SegmentationProfileName, SegmentationProfile>> = {
  // U2-Net and U2-Netp: 320 px, the fused map first (d0, already through a sigmoid)
  u2net: { name: 'u2net', size: { width: 320, height: 320 }, ...IMAGENET, outputIndex: 0, sigmoid: false },
  // IS-Net (DIS, isnet-general-use): 1024 px, centred on 0.5 without scaling
  isnet: {
    name: 'isnet',
    size: { width: 1024, height: 1024 },
    mean: [0.5, 0.5, 0.5],
    std: [1, 1, 1],
    outputIndex: 0,
    sigmoid: false,
  },
  // BiRefNet: 1024 px, ImageNet statistics, logits out
  birefnet: { name: 'birefnet', size: { width: 1024, height: 1024 }, ...IMAGENET, outputIndex: 0, sigmoid: true },
};
