// Inputs on cards: one "• *Title*: `value`" line each, escaped, secrets shown as the mask whatever
// value they carry. The labelled list itself comes from src/forms/labelled-inputs.ts.
import type { LabelledInput } from '../../forms/labelled-inputs.ts';
import { SECRET_MASK } from '../../forms/secrets.ts';
import { escapeMrkdwn, truncate } from './mrkdwn.ts';

export type { CardInputs, LabelledInput } from '../../forms/labelled-inputs.ts';
export { inputCount, labelInputs, toLabelledInputs } from '../../forms/labelled-inputs.ts';

function valueText(input: LabelledInput, maxValue: number): string {
  if (input.secret) return `\`${SECRET_MASK}\``;
  const v = input.value;
  const raw = typeof v === 'string' ? v : v === undefined ? '' : (JSON.stringify(v) ?? 'null');
  const oneLine = raw.replace(/\s*[\r\n]+\s*/g, ' ').replace(/`/g, 'ˋ');
  return `\`${escapeMrkdwn(truncate(oneLine || ' ', maxValue))}\``;
}

/** One "• *Label*: `value`" line per input (escaped mrkdwn). */
export function inputLines(inputs: readonly LabelledInput[], maxValue = 120): string[] {
  return inputs.map((i) => `• *${escapeMrkdwn(truncate(i.label, 60))}*: ${valueText(i, maxValue)}`);
}
