import { describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import { assumes8Bit, estimatePixelMemory, pipelineSteps, type DetectedFace, type EditPlan } from '@app/image-pipeline';
import { parseEditRequest } from '../../edit-request';
import { modelOperations } from '../../model-capabilities';
import { planBody, probeOf } from '../../plan-fixtures';
import { faceCutRow, planIdentityCrop } from './identity-crop';

const probe = probeOf('jpeg', 1000, 800);

/** A face whose landmark 33 (subnasale) is at `nose` and 51 (upper lip) at `lip`, the others at the nose. */
function face(nose: number, lip: number): DetectedFace {
  const landmarks = Array.from({ length: 68 }, () => ({ x: 500, y: nose }));
  landmarks[51] = { x: 500, y: lip };
  return { box: { left: 400, top: nose - 100, width: 200, height: 200 }, score: 0.9, landmarks };
}

function plan(operations: object, faces?: DetectedFace[]) {
  return planBody({ operations }, probe, { faces });
}

describe('planning the identity crop', () => {
  it.each([
    ['halfway between nose and lip', 300, 310, 305],
    ['rounded within the two', 300.4, 303.9, 302],
    ['both in one row: just below the nose', 300.2, 300.7, 301],
    ['upside down (lip above nose): still between', 310, 300, 305],
  ])('cuts one face %s', (_name, nose, lip, row) => {
    expect(faceCutRow(face(nose, lip))).toBe(row);
  });

  it('cuts several faces at the lowest line, so that none keeps its eyes', () => {
    expect(planIdentityCrop([face(200, 210), face(400, 420), face(300, 306)], 800)).toEqual({ top: 410 });
  });

  it('plans no crop without a face, or with the line above the image', () => {
    expect(planIdentityCrop([], 800)).toBeUndefined();
    expect(planIdentityCrop([face(-20, -10)], 800)).toBeUndefined();
  });

  it('refuses (422) a cut that would leave nothing', () => {
    expect(() => planIdentityCrop([face(795, 820)], 800)).toThrow(ServiceException);
  });

  it('sizes every later step from the cropped image', () => {
    const planned = plan(
      { privacy: { identity_crop: true }, padding: '10%', resizing: { width: 500, fit: 'bounds' } },
      [face(300, 310)],
    );
    expect(planned.operations?.privacy).toEqual({ identityCrop: { top: 305 }, blurPlates: false });
    // 1000 x 495 cropped, padded by 10 % per side (100 px, 50 px), then bounded to 500 px wide
    expect(planned.operations?.padding).toMatchObject({ sides: { top: 50, right: 100, bottom: 50, left: 100 } });
    expect(planned.resize).toMatchObject({ mode: 'scale', width: 500, height: Math.round((500 * 595) / 1200) });
  });

  it('plans the uncut image before the faces are known, and without identity_crop', () => {
    expect(plan({ privacy: { identity_crop: true } }).operations?.privacy).toBeUndefined();
    expect(plan({ privacy: { identity_crop: false } }, [face(300, 310)]).operations?.privacy).toBeUndefined();
    expect(plan({ privacy: { blur_car_plate: true } }, [face(300, 310)]).operations?.privacy).toEqual({
      blurPlates: true,
    });
  });

  it('runs first, on the original pixels at any depth for the crop alone; plate blur holds 8-bit sRGB frames', () => {
    const names = pipelineSteps().map((step) => step.name);
    expect(names.slice(0, 2)).toEqual(['decode', 'privacy']);
    const [, privacy] = pipelineSteps();
    expect(assumes8Bit(privacy, { identityCrop: { top: 10 }, blurPlates: false })).toBe(false);
    expect(assumes8Bit(privacy, { blurPlates: true })).toBe(true);
    const probe16 = { format: 'png' as const, width: 1000, height: 1000, space: 'rgb16' as const };
    const base: EditPlan = { encode: { format: 'png', compression: 'fast' }, colour: { space: 'auto' } };
    const cut: EditPlan = { ...base, operations: { privacy: { identityCrop: { top: 300 }, blurPlates: false } } };
    // the crop is lazy: the uncut plan (which the executor admits) bounds the cut one
    expect(estimatePixelMemory(probe16, cut)).toBe(estimatePixelMemory(probe16, base));
    const plates: EditPlan = { ...base, operations: { privacy: { blurPlates: true } } };
    expect(estimatePixelMemory(probe16, plates)).toBeGreaterThan(estimatePixelMemory(probe16, base));
  });

  it('needs the face detector for identity_crop and the text detector for blur_car_plate (501 names each)', () => {
    const request = parseEditRequest(
      { input: 'https://example.com/a.jpg', operations: { privacy: { identity_crop: true, blur_car_plate: true } } },
      { input: 'required' },
    );
    expect(modelOperations(request)).toEqual([
      { path: 'operations.privacy.blur_car_plate', needs: 'text-detection' },
      { path: 'operations.privacy.identity_crop', needs: 'face-detection' },
    ]);
  });
});
