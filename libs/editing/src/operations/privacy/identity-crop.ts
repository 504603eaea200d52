import { ServiceException } from '@app/common';
import { SUBNASALE, UPPER_LIP_TOP, type DetectedFace, type IdentityCropPlan } from '@app/image-pipeline';

/**
 * The row one face is cut at: between its subnasale (landmark 33) and the top of its upper lip (51), at their
 * mean height, kept within the rows between the two points (a face tilted so that they share a row is cut just
 * below the nose).
 */
export function faceCutRow(face: DetectedFace): number {
  const nose = face.landmarks[SUBNASALE].y;
  const lip = face.landmarks[UPPER_LIP_TOP].y;
  const low = Math.ceil(Math.min(nose, lip));
  const high = Math.floor(Math.max(nose, lip));
  return high < low ? low : Math.min(high, Math.max(low, Math.round((nose + lip) / 2)));
}

/**
 * The identity crop of an image `height` rows high with `faces` found in it (display pixels). With several
 * faces the cut is at the lowest of their rows, so that no face keeps its eyes or nose (the contract: everything
 * above the line of every detected person goes). No face: no crop; the caller tells the client (NO_FACE_FOUND).
 * A face whose line is at the bottom edge would leave nothing: 422.
 */
export function planIdentityCrop(faces: readonly DetectedFace[], height: number): IdentityCropPlan | undefined {
  if (faces.length === 0) return undefined;
  const top = Math.max(...faces.map(faceCutRow));
  if (top >= height) {
    throw ServiceException.validation({
      'operations.privacy.identity_crop': [
        `a face's line between nose and mouth lies at the bottom edge of the image (row ${top} of ${height}): nothing would be left below it`,
      ],
    });
  }
  return top > 0 ? { top } : undefined;
}
