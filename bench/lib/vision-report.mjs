// The vision suite's block of docs/benchmarks.md (and console output): the machine, background removal against
// the reference with both methods' IoU on the composite set, the issue's targets, the other vision operations.

/** The issue's targets: at most this share of the reference's p50 at 1 MP, mean IoU at most this far below. */
export const TIME_TARGET = 0.5;
export const IOU_TARGET = 0.02;

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const mean = (values) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** The table cells of a measured, skipped or failed row (p50, p95, n, peak RSS). */
function figures(row) {
  if (row.skipped) return [row.skipped, '', '', ''];
  if (row.failed) return [`failed: ${row.failed.replaceAll('|', '\\|').replaceAll('\n', ' ')}`, '', '', ''];
  return [fixed(row.p50, 0), fixed(row.p95, 0), String(row.n), fixed(row.peakMiB, 0)];
}

const table = (header, rows) =>
  [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`, ...rows].join(
    '\n',
  );

/** Per-object and overall means of the composite set, one column per method that ran it. */
function setTable(sets) {
  const methods = Object.keys(sets);
  const objects = [...new Set(Object.values(sets)[0].map((s) => s.object))];
  const rows = objects.map((object) => {
    const cells = methods.map((m) => fixed(mean(sets[m].filter((s) => s.object === object).map((s) => s.iou)), 3));
    return `| ${object} | ${cells.join(' | ')} |`;
  });
  const count = Object.values(sets)[0].length;
  rows.push(
    `| **mean of all ${count}** | ${methods.map((m) => `**${fixed(mean(sets[m].map((s) => s.iou)), 4)}**`).join(' | ')} |`,
  );
  const lowest = (m) => sets[m].reduce((low, s) => (s.iou < low.iou ? s : low));
  rows.push(`| lowest | ${methods.map((m) => `${fixed(lowest(m).iou, 3)} (${lowest(m).name})`).join(' | ')} |`);
  const header = ['Object (3 composites each)', ...methods];
  return [`| ${header.join(' | ')} |`, `| --- |${methods.map(() => ' ---: |').join('')}`, ...rows].join('\n');
}

/** The target lines, with the figures in them; `met` is false when a target was not met or not measured. */
export function visionTargets({ removal }) {
  const find = (scene, method) => removal.find((r) => r.scene.name === scene && r.method === method);
  const ours = find('1 MP', 'service');
  const theirs = find('1 MP', 'imgly');
  const lines = [];
  const ratio = ours?.p50 / theirs?.p50;
  if (Number.isFinite(ratio)) {
    const verdict = ratio <= TIME_TARGET ? 'met' : 'NOT met';
    lines.push(
      `- Background removal at 1 MP, p50 of the service / p50 of imgly: **${fixed(ratio, 3)}** ` +
        `(${fixed(ours.p50, 0)} ms / ${fixed(theirs.p50, 0)} ms; target <= ${TIME_TARGET}: ${verdict}).`,
    );
  } else {
    lines.push('- Background removal at 1 MP against imgly: not measured (see the rows above).');
  }
  const ourSet = ours?.extra?.set;
  const theirSet = theirs?.extra?.set;
  if (ourSet && theirSet) {
    const difference = mean(ourSet.map((s) => s.iou)) - mean(theirSet.map((s) => s.iou));
    const verdict = difference >= -IOU_TARGET ? 'met' : 'NOT met';
    lines.push(
      `- Mean IoU on the composite set, service - imgly: **${difference >= 0 ? '+' : ''}${fixed(difference, 4)}** ` +
        `(target >= -${IOU_TARGET}: ${verdict}).`,
    );
  } else {
    lines.push('- Mean IoU on the composite set against imgly: not measured.');
  }
  return lines.join('\n');
}

/** The block of the doc. */
export function renderVision({
  machine,
  options,
  inputs,
  reference,
  referenceError,
  removal,
  others,
  seconds,
  waitedMs,
}) {
  const scene = (row) => `${row.scene.name} (${row.scene.width}x${row.scene.height})`;
  const loads = [...removal, ...others].map((r) => r.othersCores).filter(Number.isFinite);
  const parts = [
    '## Vision suite: results of the last run\n',
    [
      '| | |',
      '| --- | --- |',
      `| Date | ${machine.date} |`,
      `| CPU | ${machine.cpu}, ${machine.cores} cores available |`,
      `| Memory | ${fixed(machine.memoryGiB, 1)} GiB |`,
      `| OS, Node | ${machine.os}, ${machine.node} |`,
      `| sharp | ${machine.sharp}, libvips ${machine.vips} |`,
      `| Load average at start | ${machine.loadAverage.map((l) => l.toFixed(2)).join(', ')} |`,
      `| Other processes' load while rows ran | ${loads.length ? `${fixed(Math.min(...loads), 2)} to ${fixed(Math.max(...loads), 2)} cores` : 'n/a'} |`,
    ].join('\n'),
    '',
    `Every row on a fresh process: one warm-up request (the model loads and warms up), then requests one after the ` +
      `other (n); p50 and p95 by nearest rank (with n = 5, p95 is the slowest); peak RSS is that process's VmHWM ` +
      `(the service's: the whole API process, its model worker threads included). Run time ` +
      `${fixed(seconds / 60, 1)} min, of which ${fixed(waitedMs / 60000, 1)} min waiting for a quieter machine.\n`,
    '### Background removal (JPEG in, PNG with the background transparent out)\n',
    `- service: \`POST /v1/image/edit\` with \`operations.background: {remove: true, color: "transparent"}\`, \`output.format: png\`, the ` +
      'input on a local origin server.',
    reference
      ? `- imgly: \`${reference.package}\` ${reference.version}, its own \`removeBackground\` with its default model ` +
        `\`${reference.model}\` (onnxruntime-node ${reference.onnxruntime}, sharp ${reference.sharp}), in a process ` +
        'of its own around it that takes the same URL (the library fetches it) and answers with its PNG.'
      : `- imgly: not run (${referenceError ?? '--no-imgly'}).`,
    '',
    table(
      ['Input', 'Method', 'p50 ms', 'p95 ms', 'n', 'peak RSS MiB', 'IoU on this image', "others' load"],
      removal.map(
        (r) =>
          `| ${scene(r)} | ${r.method} | ${figures(r).join(' | ')} | ${fixed(r.extra?.iou, 3)} | ${fixed(r.othersCores, 2)} |`,
      ),
    ),
    '',
    `The removal inputs: the edit suite's photo with the sample bottle (libs/storage/samples) on it; "IoU on this ` +
      "image\" is the bottle's alpha against the result's (above 127), from the warm-up's answer.\n",
  ];
  const sets = Object.fromEntries(
    removal.filter((r) => r.scene.name === '1 MP' && r.extra?.set).map((r) => [r.method, r.extra.set]),
  );
  if (Object.keys(sets).length > 0) {
    const cached = removal.find((r) => r.method === 'imgly' && r.extra?.set)?.extra.cached;
    parts.push(
      `### IoU on the segmentation composite set (${inputs.composites.length} composites, 640x640, test/fixtures/composites)\n`,
      setTable(sets),
      '',
      'Mask IoU (alpha above 127 against the truth above 127), as the HTTP test measures it.' +
        (cached ? ` imgly's masks of ${cached} composites came from bench/.cache/vision (its answers, kept).` : '') +
        '\n',
    );
  }
  parts.push(`### Targets\n\n${visionTargets({ removal })}\n`);
  parts.push(
    '### Other vision operations, through the service\n',
    table(
      ['Operation', 'Input', 'p50 ms', 'p95 ms', 'n', 'peak RSS MiB', 'output', "others' load"],
      others.map(
        (r) =>
          `| ${r.name} | ${r.input.width}x${r.input.height} | ${figures(r).join(' | ')} | ${r.extra?.note ?? ''} | ${fixed(r.othersCores, 2)} |`,
      ),
    ),
    '',
    "Upscale: `restorations.upscale` alone (the contract enlarges 2x), JPEG out, on people (face-api's demo " +
      'sample2.jpg) at 0.25 MP. Faces: `privacy.identity_crop` on three people (its sample1.jpg). Plates: ' +
      '`privacy.blur_car_plate` on an EU-shaped plate drawn on the photo. A row that says "not installed (501)" ' +
      'asked for an operation whose model this build does not have.',
  );
  if (options.quick) parts.push('\n(--quick: figures meaningless.)');
  return parts.join('\n');
}
