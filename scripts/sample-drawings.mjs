// The drawings of the sample images (scripts/make-samples.mjs renders them; libs/storage/samples/README.md).
// The plant's drawing without its wall, floor and shadow is the truth of its cut-out (test/cutout-quality.e2e-spec.ts).

/** A ceramic mug on a wooden table, steam rising: 800 x 600, opaque. */
export const mug = `
<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600" viewBox="0 0 800 600">
  <defs>
    <linearGradient id="wall" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#efe8dc"/><stop offset="1" stop-color="#d9cdbb"/>
    </linearGradient>
    <linearGradient id="table" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#b88a5c"/><stop offset="1" stop-color="#8e6340"/>
    </linearGradient>
    <linearGradient id="glaze" x1="0" y1="0" x2="1" y2="0">
      <stop offset="0" stop-color="#164a50"/><stop offset="0.3" stop-color="#3f9aa2"/>
      <stop offset="0.42" stop-color="#6cc0c6"/><stop offset="0.62" stop-color="#2f7f86"/>
      <stop offset="1" stop-color="#123d42"/>
    </linearGradient>
    <linearGradient id="coffee" x1="0" y1="0" x2="1" y2="0">
      <stop offset="0" stop-color="#2a160b"/><stop offset="0.5" stop-color="#5a321a"/><stop offset="1" stop-color="#2a160b"/>
    </linearGradient>
    <radialGradient id="light" cx="0.25" cy="0.15" r="0.9">
      <stop offset="0" stop-color="#fff8ea" stop-opacity="0.55"/><stop offset="1" stop-color="#fff8ea" stop-opacity="0"/>
    </radialGradient>
    <filter id="soft" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="14"/></filter>
    <filter id="steam" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="6"/></filter>
  </defs>
  <rect width="800" height="600" fill="url(#wall)"/>
  <rect width="800" height="600" fill="url(#light)"/>
  <rect y="390" width="800" height="210" fill="url(#table)"/>
  <rect y="388" width="800" height="6" fill="#d3a979"/>
  <g stroke="#7d5535" stroke-opacity="0.35" stroke-width="2" fill="none">
    <path d="M0 430 C200 424 420 440 800 428"/><path d="M0 478 C260 470 520 492 800 474"/>
    <path d="M0 530 C180 540 470 520 800 536"/><path d="M0 574 C300 566 560 586 800 570"/>
  </g>
  <ellipse cx="410" cy="446" rx="150" ry="18" fill="#3b2414" fill-opacity="0.55" filter="url(#soft)"/>
  <path d="M480 250 C560 246 566 372 478 372" stroke="#1d5c62" stroke-width="30" fill="none" stroke-linecap="round"/>
  <path d="M480 250 C548 250 552 366 478 366" stroke="#4aa3aa" stroke-width="10" fill="none" stroke-opacity="0.6"/>
  <path d="M270 200 L270 420 C270 452 490 452 490 420 L490 200 Z" fill="url(#glaze)"/>
  <ellipse cx="380" cy="200" rx="110" ry="22" fill="#7cc8cd"/>
  <ellipse cx="380" cy="202" rx="100" ry="18" fill="#0f3136"/>
  <ellipse cx="380" cy="208" rx="96" ry="13" fill="url(#coffee)"/>
  <rect x="304" y="226" width="16" height="196" rx="8" fill="#ffffff" fill-opacity="0.22"/>
  <g stroke="#ffffff" stroke-width="9" fill="none" stroke-linecap="round" stroke-opacity="0.55" filter="url(#steam)">
    <path d="M350 180 C330 150 372 128 350 92 C336 70 356 52 350 38"/>
    <path d="M400 184 C384 152 424 134 404 100 C392 80 410 64 404 48"/>
  </g>
</svg>`;

/** A glass bottle with a label, cut out on a transparent background: 480 x 720. */
export const bottle = `
<svg xmlns="http://www.w3.org/2000/svg" width="480" height="720" viewBox="0 0 480 720">
  <defs>
    <linearGradient id="glass" x1="0" y1="0" x2="1" y2="0">
      <stop offset="0" stop-color="#1f4d2b"/><stop offset="0.22" stop-color="#3f8a50"/>
      <stop offset="0.5" stop-color="#5fae6c"/><stop offset="0.78" stop-color="#2f6e3d"/>
      <stop offset="1" stop-color="#163a20"/>
    </linearGradient>
    <linearGradient id="cap" x1="0" y1="0" x2="1" y2="0">
      <stop offset="0" stop-color="#1c1c1c"/><stop offset="0.4" stop-color="#5a5a5a"/><stop offset="1" stop-color="#141414"/>
    </linearGradient>
    <linearGradient id="label" x1="0" y1="0" x2="1" y2="0">
      <stop offset="0" stop-color="#d8ceb8"/><stop offset="0.45" stop-color="#fbf6ea"/><stop offset="1" stop-color="#c9bea6"/>
    </linearGradient>
  </defs>
  <rect x="202" y="62" width="76" height="86" rx="10" fill="url(#cap)"/>
  <g stroke="#000000" stroke-opacity="0.35" stroke-width="3">
    <path d="M214 70 V140"/><path d="M228 70 V140"/><path d="M242 70 V140"/><path d="M256 70 V140"/><path d="M270 70 V140"/>
  </g>
  <path d="M206 148 H274 V222 C274 262 350 268 356 322 V642 C356 672 336 684 306 684 H174 C144 684 124 672 124 642 V322
           C130 268 206 262 206 222 Z" fill="url(#glass)"/>
  <rect x="124" y="400" width="232" height="184" fill="url(#label)"/>
  <rect x="124" y="420" width="232" height="14" fill="#c2553a"/>
  <rect x="124" y="552" width="232" height="8" fill="#c2553a"/>
  <circle cx="240" cy="492" r="34" fill="none" stroke="#2f6e3d" stroke-width="6"/>
  <path d="M240 470 C222 486 224 508 240 516 C256 508 258 486 240 470 Z" fill="#3f8a50"/>
  <path d="M240 476 V512" stroke="#fbf6ea" stroke-width="2"/>
  <path d="M160 300 C166 282 186 270 200 262" stroke="#ffffff" stroke-opacity="0.45" stroke-width="8" fill="none"
        stroke-linecap="round"/>
  <rect x="150" y="330" width="18" height="62" rx="9" fill="#ffffff" fill-opacity="0.35"/>
  <rect x="150" y="596" width="18" height="60" rx="9" fill="#ffffff" fill-opacity="0.3"/>
  <rect x="214" y="156" width="10" height="58" rx="5" fill="#ffffff" fill-opacity="0.3"/>
</svg>`;

/** A potted plant against a pastel wall: 600 x 600, opaque. */
export const plant = `
<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600" viewBox="0 0 600 600">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#f6e1d3"/><stop offset="1" stop-color="#edc9b4"/>
    </linearGradient>
    <linearGradient id="pot" x1="0" y1="0" x2="1" y2="0">
      <stop offset="0" stop-color="#8f3f24"/><stop offset="0.35" stop-color="#d0714a"/>
      <stop offset="0.7" stop-color="#b4552f"/><stop offset="1" stop-color="#7a331c"/>
    </linearGradient>
    <linearGradient id="leaf" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#7cc26a"/><stop offset="1" stop-color="#2e6b34"/>
    </linearGradient>
    <linearGradient id="leaf2" x1="1" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#9bd47f"/><stop offset="1" stop-color="#3a7d3c"/>
    </linearGradient>
    <filter id="blur" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="12"/></filter>
  </defs>
  <rect width="600" height="600" fill="url(#bg)"/>
  <rect y="470" width="600" height="130" fill="#e2b79e"/>
  <ellipse cx="318" cy="520" rx="150" ry="20" fill="#6b3a24" fill-opacity="0.45" filter="url(#blur)"/>
  <g stroke="#2b5a2e" stroke-width="5" fill="none" stroke-linecap="round">
    <path d="M300 360 C296 300 270 250 220 200"/><path d="M300 360 C306 290 340 230 392 182"/>
    <path d="M300 360 C300 280 300 210 302 140"/><path d="M300 360 C280 320 230 300 170 300"/>
    <path d="M300 360 C322 320 372 300 432 296"/>
  </g>
  <ellipse cx="205" cy="185" rx="62" ry="30" transform="rotate(-40 205 185)" fill="url(#leaf)"/>
  <ellipse cx="408" cy="168" rx="64" ry="30" transform="rotate(-140 408 168)" fill="url(#leaf2)"/>
  <ellipse cx="302" cy="110" rx="28" ry="62" fill="url(#leaf)"/>
  <ellipse cx="158" cy="298" rx="60" ry="26" transform="rotate(-8 158 298)" fill="url(#leaf2)"/>
  <ellipse cx="446" cy="292" rx="60" ry="26" transform="rotate(8 446 292)" fill="url(#leaf)"/>
  <ellipse cx="250" cy="250" rx="50" ry="22" transform="rotate(-55 250 250)" fill="url(#leaf2)"/>
  <ellipse cx="356" cy="246" rx="50" ry="22" transform="rotate(-125 356 246)" fill="url(#leaf)"/>
  <g stroke="#d9f0c8" stroke-opacity="0.6" stroke-width="2" fill="none">
    <path d="M160 220 L250 150"/><path d="M455 205 L360 130"/><path d="M302 60 V160"/>
    <path d="M100 300 L216 296"/><path d="M504 300 L388 286"/>
  </g>
  <path d="M212 360 H388 L366 510 C364 522 354 528 342 528 H258 C246 528 236 522 234 510 Z" fill="url(#pot)"/>
  <rect x="200" y="344" width="200" height="38" rx="8" fill="url(#pot)"/>
  <rect x="200" y="344" width="200" height="8" rx="4" fill="#e58c63"/>
  <rect x="240" y="392" width="12" height="110" rx="6" fill="#ffffff" fill-opacity="0.18"/>
</svg>`;

/** The plant alone: its drawing without the wall, the floor and the shadow (transparent around it). */
export const plantAlone = [
  '<rect width="600" height="600" fill="url(#bg)"/>',
  '<rect y="470" width="600" height="130" fill="#e2b79e"/>',
  '<ellipse cx="318" cy="520" rx="150" ry="20" fill="#6b3a24" fill-opacity="0.45" filter="url(#blur)"/>',
].reduce((svg, line) => svg.replace(line, ''), plant);
