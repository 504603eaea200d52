#!/usr/bin/env bash
# Builds the four CMYK output profiles Atelier ships (libs/image-pipeline/icc/<Name>.icc) from free
# characterisation data with ArgyllCMS. Provenance, licences and the choices below: libs/image-pipeline/icc/PROVENANCE.md.
#
#   scripts/build-cmyk-profiles.sh                  # all four
#   scripts/build-cmyk-profiles.sh ISO_Coated ...   # only the named ones
#
# Idempotent: every run builds from the Debian data into a scratch folder and replaces the output files; with
# the same package versions a rerun gives byte-identical files (colprof is deterministic; the date is fixed).
# Takes about a minute per profile on one core (colprof is single-threaded).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="$ROOT/libs/image-pipeline/icc"
DATA_DIR=/usr/share/color/icc             # icc-profiles-free: FOGRA*L.ti3 and CGATS TR00x.ti3 (already CGATS .ti3)
SRGB=/usr/share/color/argyll/ref/sRGB.icm # argyll-ref: the source gamut for the perceptual tables

# The versions the committed profiles were built with; other versions still build, with a warning, because the
# data has not changed in years but colprof's fitting may differ slightly between releases.
EXPECTED_ARGYLL='2.3.1+repack-1.1+b1'
EXPECTED_DATA='2.0.1+dfsg-1.1'

# name | data file | total area coverage % | black ink limit % | data source named in the profile.
# TAC is what a print buyer specifies for each condition; the black limit keeps a few percent of tone margin
# on the K plate for the FOGRA conditions and allows solid K for the US ones (as in SWOP work).
PROFILES=(
  'ISO_Coated|FOGRA39L|330|95|Fogra FOGRA39L (ISO 12647-2:2004/Amd 1, paper type 1/2, coated)'
  'ISO_Uncoated|FOGRA29L|300|95|Fogra FOGRA29L (ISO 12647-2:2004, paper type 4, white uncoated)'
  # USWeb_Coated: TR 001 (Adobe's source) is not shipped; TR 005 is SWOP 2006 on the same grade 5 paper.
  'USWeb_Coated|TR005|300|100|ANSI/CGATS/SWOP TR 005-2007 (SWOP on grade 5 coated paper)'
  # USWeb_Uncoated: no free US uncoated web data; FOGRA29 (white uncoated) is the closest paper shipped.
  'USWeb_Uncoated|FOGRA29L|260|100|Fogra FOGRA29L (ISO 12647-2:2004, paper type 4, white uncoated)'
)

need_packages=()
for pkg in argyll argyll-ref icc-profiles-free; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || need_packages+=("$pkg")
done
if ((${#need_packages[@]})); then
  echo "Missing Debian packages. Install them with:" >&2
  echo "  sudo apt-get install --no-install-recommends ${need_packages[*]}" >&2
  exit 1
fi

argyll_version="$(dpkg-query -W -f='${Version}' argyll)"
data_version="$(dpkg-query -W -f='${Version}' icc-profiles-free)"
[[ "$argyll_version" == "$EXPECTED_ARGYLL" ]] ||
  echo "warning: argyll $argyll_version, the committed profiles were built with $EXPECTED_ARGYLL" >&2
[[ "$data_version" == "$EXPECTED_DATA" ]] ||
  echo "warning: icc-profiles-free $data_version, the committed profiles were built with $EXPECTED_DATA" >&2

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT_DIR"

build() {
  local name="$1" data="$2" tac="$3" black="$4" source="$5"
  local src="$DATA_DIR/$data.ti3"
  [[ -r "$src" ]] || { echo "error: $src not found (is icc-profiles-free complete?)" >&2; exit 1; }
  # colprof names its input by basename; a copy under the profile's name keeps the logs readable.
  cp "$src" "$work/$name.ti3"
  echo "== $name: $data.ti3, TAC ${tac}%, K ${black}%"
  # -qm: medium quality (A2B cLUT 9^4, B2A 17^3), about 0.35 MB less the data; -qh is 4x the size and time.
  # -kr: black ramps linearly from none at paper white to the limit at black: a medium GCR that keeps greys
  #      stable on press and lets the ink limit hold in the shadows.
  # -l/-L: total and black ink limits; the B2A tables never produce more ink than these.
  # -S sRGB + -cmt/-dpp: the perceptual and saturation tables map the sRGB gamut (what the service converts
  #      from, with sharp's perceptual intent) into the print gamut, for a monitor viewed in a typical room
  #      and a print viewed under ISO 3664 P2.
  # -nc: the measurement data is not embedded (saves ~0.13 MB in every JPEG the profile is embedded in).
  colprof -v -qm -kr -l"$tac" -L"$black" -S "$SRGB" -cmt -dpp -nc \
    -D "Atelier $name ($data data, TAC ${tac}%)" \
    -C "Built by Atelier with ArgyllCMS from free data (icc-profiles-free, Zlib). No warranty." \
    -M "Characterisation data: $source" \
    -O "$work/$name.icc" "$work/$name" >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; echo "error: colprof failed for $name" >&2; exit 1; }
  grep -E 'ink limit being used|Profile check complete' "$work/$name.log" | sed 's/^/   /'
  # A CMYK output profile is what sharp needs; anything else would be silently misused.
  iccdump -v1 "$work/$name.icc" | grep -q 'Color Space  = CMYK' ||
    { echo "error: $name.icc is not a CMYK profile" >&2; exit 1; }
  # colprof stamps the build time into the header (bytes 24..35, six big-endian uint16: Y M D h m s); a fixed
  # date makes rebuilds byte-identical. Safe because Argyll writes v2 profiles without a profile ID (MD5).
  printf '\x07\xea\x00\x01\x00\x01\x00\x00\x00\x00\x00\x00' | # 2026-01-01 00:00:00
    dd of="$work/$name.icc" bs=1 seek=24 conv=notrunc status=none
  install -m 0644 "$work/$name.icc" "$OUT_DIR/$name.icc"
  echo "   -> ${OUT_DIR#"$ROOT"/}/$name.icc ($(stat -c %s "$OUT_DIR/$name.icc") bytes)"
}

wanted=("$@")
built=0
for row in "${PROFILES[@]}"; do
  IFS='|' read -r name data tac black source <<<"$row"
  if ((${#wanted[@]})) && [[ " ${wanted[*]} " != *" $name "* ]]; then continue; fi
  build "$name" "$data" "$tac" "$black" "$source"
  built=$((built + 1))
done
((built)) || { echo "error: no profile named ${wanted[*]}; known: ISO_Coated ISO_Uncoated USWeb_Coated USWeb_Uncoated" >&2; exit 1; }
echo "Built $built profile(s) with argyll $argyll_version and icc-profiles-free $data_version."
