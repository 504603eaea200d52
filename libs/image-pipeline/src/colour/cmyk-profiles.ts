import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { locateShippedFolder } from '@app/common';
import type { CmykProfileName } from '../edit-plan';

/**
 * The CMYK output profiles the service ships, built by scripts/build-cmyk-profiles.sh into
 * libs/image-pipeline/icc (sources, commands and approximations: libs/image-pipeline/icc/PROVENANCE.md).
 */
export interface CmykProfile {
  /** File name inside the icc folder. */
  file: string;
  /** The profile's `desc` tag, as embedded in every output image. */
  description: string;
  /** Total area coverage: the most C+M+Y+K ink the profile ever produces, in percent (0..400). */
  totalAreaCoverage: number;
}

export const CMYK_PROFILES: Readonly<Record<CmykProfileName, CmykProfile>> = {
  ISO_Coated: {
    file: 'ISO_Coated.icc',
    description: 'Atelier ISO_Coated (FOGRA39L data, TAC 330%)',
    totalAreaCoverage: 330,
  },
  ISO_Uncoated: {
    file: 'ISO_Uncoated.icc',
    description: 'Atelier ISO_Uncoated (FOGRA29L data, TAC 300%)',
    totalAreaCoverage: 300,
  },
  USWeb_Coated: {
    file: 'USWeb_Coated.icc',
    description: 'Atelier USWeb_Coated (TR005 data, TAC 300%)',
    totalAreaCoverage: 300,
  },
  USWeb_Uncoated: {
    file: 'USWeb_Uncoated.icc',
    description: 'Atelier USWeb_Uncoated (FOGRA29L data, TAC 260%)',
    totalAreaCoverage: 260,
  },
};

export const CMYK_PROFILE_NAMES: readonly CmykProfileName[] = Object.freeze(
  Object.keys(CMYK_PROFILES) as CmykProfileName[],
);

const ICC_FOLDER = join('libs', 'image-pipeline', 'icc');

/** The `libs/image-pipeline/icc` folder (see {@link locateShippedFolder}), from this file's folder by default. */
export function locateIccFolder(startDir: string = __dirname): string {
  return locateShippedFolder(ICC_FOLDER, startDir, 'CMYK profiles');
}

/**
 * The absolute path of a shipped CMYK profile. sharp ignores a profile path it cannot read (it logs a warning
 * and writes RGB), so a missing file is an error here, never a silent fallback.
 * @param iccFolder the folder holding the .icc files; located with {@link locateIccFolder} when omitted.
 * @throws Error when the file is missing.
 */
export function cmykProfilePath(name: CmykProfileName, iccFolder: string = locateIccFolder()): string {
  const profile = CMYK_PROFILES[name];
  if (!profile) throw new Error(`CMYK profiles: unknown profile '${String(name)}'`);
  const path = join(iccFolder, profile.file);
  if (!existsSync(path)) {
    throw new Error(`CMYK profile ${name} is missing: ${path} (rebuild with scripts/build-cmyk-profiles.sh)`);
  }
  return path;
}

const HEADER_BYTES = 128;

/** Throws unless `icc` holds at least an ICC header: 128 bytes with the 'acsp' signature at byte 36. */
function checkHeader(icc: Buffer): void {
  if (icc.length < HEADER_BYTES + 4 || icc.toString('latin1', 36, 40) !== 'acsp') {
    throw new Error(`Not an ICC profile (${icc.length} bytes, no 'acsp' signature)`);
  }
}

/**
 * The header's data colour space signature, 4 characters with ICC's trailing spaces kept:
 * 'CMYK', 'RGB ', 'GRAY', 'Lab ', ...
 * @throws Error when `icc` is not an ICC profile.
 */
export function iccColourSpace(icc: Buffer): string {
  checkHeader(icc);
  return icc.toString('latin1', 16, 20);
}

/**
 * The header's device class signature, 4 characters: 'prtr' (output, the class of a press profile),
 * 'mntr' (display), 'scnr' (input), 'spac' (colour space), 'link', 'abst' or 'nmcl'.
 * @throws Error when `icc` is not an ICC profile.
 */
export function iccDeviceClass(icc: Buffer): string {
  checkHeader(icc);
  return icc.toString('latin1', 12, 16);
}

/**
 * The profile description (`desc` tag): the ASCII text of an ICC v2 textDescriptionType, or the first record
 * of an ICC v4 multiLocalizedUnicodeType (UTF-16BE). Undefined when the profile has no readable `desc` tag.
 * @throws Error when `icc` is not an ICC profile.
 */
export function iccDescription(icc: Buffer): string | undefined {
  checkHeader(icc);
  const tag = findTag(icc, 'desc');
  if (!tag || tag.length < 12) return undefined;
  const type = tag.toString('latin1', 0, 4);
  if (type === 'desc') {
    const count = tag.readUInt32BE(8); // bytes of ASCII, including the terminating NUL
    if (12 + count > tag.length) return undefined;
    return tag.toString('latin1', 12, 12 + count).replace(/\0.*$/s, '');
  }
  if (type === 'mluc') {
    const records = tag.readUInt32BE(8);
    if (records < 1 || tag.length < 28) return undefined;
    const length = tag.readUInt32BE(20); // bytes of UTF-16BE
    const offset = tag.readUInt32BE(24); // from the start of the tag
    if (offset + length > tag.length) return undefined;
    let text = '';
    for (let i = offset; i + 1 < offset + length; i += 2) text += String.fromCharCode(tag.readUInt16BE(i));
    return text.replace(/\0.*$/s, '');
  }
  return undefined;
}

/** The bytes of the tag with signature `signature`, from the tag table that follows the header. */
function findTag(icc: Buffer, signature: string): Buffer | undefined {
  const count = icc.readUInt32BE(HEADER_BYTES);
  for (let i = 0; i < count; i++) {
    const entry = HEADER_BYTES + 4 + i * 12;
    if (entry + 12 > icc.length) return undefined;
    if (icc.toString('latin1', entry, entry + 4) !== signature) continue;
    const offset = icc.readUInt32BE(entry + 4);
    const size = icc.readUInt32BE(entry + 8);
    return offset + size <= icc.length ? icc.subarray(offset, offset + size) : undefined;
  }
  return undefined;
}
